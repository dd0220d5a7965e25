import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { deleteItem, getItem, isLive, putItem, queryAll, updateItem, updateItemIf, type Key } from '../../data/store';
import { s3Client, sqsClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { objectId } from '../../platform/ids';
import { defineEntity } from '../../data/key-registry';

const inspectKeys = defineEntity(
  'inspect tests',
  {
    inspectTest: { what: 'an inspection test (links, images, accessibility, code analysis) of an account, in a partition per kind; ids start with their creation second (objectId), so the partition is in creation order', pk: 'ACCT#<account>#INSPECT#<kind>', sk: '<id>', key: (accountId: string, kind: string, id = ''): Key => ({ pk: `ACCT#${accountId}#INSPECT#${kind}`, sk: id }) },
  },
  [{ what: "an account's tests of a kind, newest first", pk: 'ACCT#<account>#INSPECT#<kind>' }],
);

export type InspectKind = 'links' | 'images' | 'accessibility' | 'analyze';

/** Inspection tests are kept 90 days (contract §0: undocumented for inspect, preview's retention). */
export const INSPECT_RETENTION_DAYS = 90;

/** Where every kind starts; the final words differ per kind (contract §0) and are the kinds' own. */
export const PROCESSING = 'Processing';
/** The word for a test whose work could not be done at all (contract §0 has it for code analysis; we use it for every kind). */
export const FAILED = 'Failed';

/**
 * One test in the table; its input and results are JSON objects in the inspections bucket (a
 * 200-link result outgrows an item). `run` counts the test's runs: a reprocess or a new version
 * starts run n+1, and only a result of the current run is ever recorded, so a slow earlier run
 * finishing late cannot overwrite a newer one.
 */
export interface InspectTest {
  accountId: string;
  kind: InspectKind;
  id: string;
  status: string;
  run: number;
  createdAt: string;
  updatedAt: string;
  ttl: number;
  /** Small figures shown in lists (counts, the result's status code tallies), set when a run ends. */
  summary?: Record<string, unknown>;
  /** Why the last run failed, when it did. */
  error?: string;
  /** Kind-specific attributes that are not results (code analysis versions, a link test's user agent). */
  meta?: Record<string, unknown>;
}

/** The job a test's run queues: functions/inspect/job-worker.ts runs it. */
export interface InspectJob {
  accountId: string;
  kind: InspectKind;
  id: string;
  run: number;
}

function bucket(): string {
  return env().INSPECT_BUCKET;
}

const objectKey = (accountId: string, kind: InspectKind, id: string, name: string) => `${accountId}/${kind}/${id}/${name}.json`;
const inputKey = (test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, run: number) => objectKey(test.accountId, test.kind, test.id, `input-${run}`);
export const resultKey = (test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, run: number) => objectKey(test.accountId, test.kind, test.id, `result-${run}`);

export async function putJson(key: string, value: unknown): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: JSON.stringify(value), ContentType: 'application/json' }));
}

async function getJson<T>(key: string): Promise<T | undefined> {
  try {
    const out = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return JSON.parse(await out.Body!.transformToString('utf8')) as T;
  } catch (error) {
    if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

async function queueJob(job: InspectJob): Promise<void> {
  const queueUrl = env().INSPECT_QUEUE_URL;
  if (!queueUrl) throw new Error('INSPECT_QUEUE_URL is not configured');
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job) }));
}

const ttlFrom = (now: number) => Math.floor(now / 1000) + INSPECT_RETENTION_DAYS * 86_400;

/** Stores the input, records the test as Processing and queues its first run. */
export async function createTest(accountId: string, kind: InspectKind, input: unknown, meta?: Record<string, unknown>, now = Date.now()): Promise<InspectTest> {
  const id = objectId(now);
  const at = new Date(now).toISOString();
  const test: InspectTest = { accountId, kind, id, status: PROCESSING, run: 1, createdAt: at, updatedAt: at, ttl: ttlFrom(now), ...(meta ? { meta } : {}) };
  await putJson(inputKey(test, 1), input);
  await putItem(inspectKeys.inspectTest(accountId, kind, id), test);
  await queueJob({ accountId, kind, id, run: 1 });
  return test;
}

/** A test whose work was done within the request (an image upload): stored already finished. */
export async function recordFinishedTest(accountId: string, kind: InspectKind, status: string, result: unknown, summary?: Record<string, unknown>, now = Date.now()): Promise<InspectTest> {
  const id = objectId(now);
  const at = new Date(now).toISOString();
  const test: InspectTest = { accountId, kind, id, status, run: 1, createdAt: at, updatedAt: at, ttl: ttlFrom(now), ...(summary ? { summary } : {}) };
  await putJson(resultKey(test, 1), result);
  await putItem(inspectKeys.inspectTest(accountId, kind, id), test);
  return test;
}

/** Bytes kept beside a test (an image test's originals and optimised copies), under the test's own prefix. */
export const testObjectKey = (test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, name: string) => `${test.accountId}/${test.kind}/${test.id}/${name}`;

export async function putBytes(key: string, bytes: Buffer, contentType: string): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: bytes, ContentType: contentType }));
}

export async function getBytes(key: string): Promise<{ bytes: Buffer; contentType?: string } | undefined> {
  try {
    const out = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return { bytes: Buffer.from(await out.Body!.transformToByteArray()), contentType: out.ContentType };
  } catch (error) {
    if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** A live test of the account, or undefined (never another account's: the key holds the account). */
export async function findTest(accountId: string, kind: InspectKind, id: string): Promise<InspectTest | undefined> {
  if (!/^[0-9a-f]{24}$/i.test(id)) return undefined;
  const test = await getItem<InspectTest>(inspectKeys.inspectTest(accountId, kind, id.toLowerCase()), { consistent: true });
  return test && isLive(test) ? test : undefined;
}

/**
 * Every live test of a kind, newest first: by creation time to the millisecond (ids only order by
 * the second), then by id, so the order is total and the same on every read.
 */
export async function listTests(accountId: string, kind: InspectKind, now = Date.now()): Promise<InspectTest[]> {
  const tests = await queryAll<InspectTest>({ pk: inspectKeys.inspectTest(accountId, kind).pk }, '', { ascending: false });
  return tests.filter((test) => isLive(test, now)).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/**
 * Starts run n+1 of a test (a reprocess, or a code analysis's new version) with its input (the
 * same input again when none is given), back to Processing. The retention clock restarts.
 */
export async function rerunTest(test: InspectTest, input?: unknown, meta?: Record<string, unknown>, now = Date.now()): Promise<InspectTest> {
  const run = test.run + 1;
  await putJson(inputKey(test, run), input ?? (await getJson(inputKey(test, test.run))));
  const at = new Date(now).toISOString();
  const changes: Record<string, unknown> = { run, status: PROCESSING, updatedAt: at, ttl: ttlFrom(now), error: undefined };
  // `meta` changes merge into the test's own; an undefined value removes that entry.
  if (meta) changes['meta'] = Object.fromEntries(Object.entries({ ...test.meta, ...meta }).filter(([, value]) => value !== undefined));
  const moved = await updateItemIf(inspectKeys.inspectTest(test.accountId, test.kind, test.id), { run: test.run }, changes);
  // Another reprocess won the race: that run is the current one, and answers for both.
  if (!moved) return (await findTest(test.accountId, test.kind, test.id)) ?? test;
  await queueJob({ accountId: test.accountId, kind: test.kind, id: test.id, run });
  return { ...test, ...changes, run } as InspectTest;
}

/**
 * Records a run's outcome, if it is still the test's current run: the result JSON first, then the
 * item. False when the test was reprocessed or deleted meanwhile (the result is then unreachable).
 */
export async function finishRun(job: InspectJob, outcome: { status: string; result?: unknown; summary?: Record<string, unknown>; error?: string; meta?: Record<string, unknown> }, now = Date.now()): Promise<boolean> {
  if (outcome.result !== undefined) await putJson(resultKey(job, job.run), outcome.result);
  const changes: Record<string, unknown> = { status: outcome.status, updatedAt: new Date(now).toISOString(), summary: outcome.summary, error: outcome.error };
  if (outcome.meta) changes['meta'] = outcome.meta;
  // Only a run still in progress ends: a repeated message must not turn a finished test into a failed one.
  return updateItemIf(inspectKeys.inspectTest(job.accountId, job.kind, job.id), { run: job.run, status: PROCESSING }, changes);
}

/** Replaces attributes of a test without touching its run (code analysis's resolved flags live in its result). */
export async function updateTestMeta(test: InspectTest, meta: Record<string, unknown>): Promise<void> {
  await updateItem(inspectKeys.inspectTest(test.accountId, test.kind, test.id), { meta });
}

export function readInput<T>(test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, run: number): Promise<T | undefined> {
  return getJson<T>(inputKey(test, run));
}

export function readResult<T>(test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, run: number): Promise<T | undefined> {
  return getJson<T>(resultKey(test, run));
}

/** Deletes the test and every object of its runs (the bucket's lifecycle would, but 90 days later). */
export async function deleteTest(test: InspectTest, extraKeys: string[] = []): Promise<void> {
  await deleteItem(inspectKeys.inspectTest(test.accountId, test.kind, test.id));
  const objects: string[] = [...extraKeys];
  for (let run = 1; run <= test.run; run++) objects.push(inputKey(test, run), resultKey(test, run));
  for (let i = 0; i < objects.length; i += 1000) {
    await s3Client().send(new DeleteObjectsCommand({ Bucket: bucket(), Delete: { Objects: objects.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
  }
}
