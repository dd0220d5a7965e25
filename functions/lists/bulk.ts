import { getItem, putItem, updateItem } from '../data/store';
import { BadRequest } from '../platform/errors';
import type { UploadedFile } from '../platform/http/body';
import { validate } from '../platform/http/params';
import { randomHex } from '../platform/ids';
import { csvRows } from '../suppressions/csv';
import { getJobObject, jobObjectKey, putJobObject, queueListJob } from './jobs';
import { listKeys, type ListItem } from './list-store';
import { addMembers, requireList, type MemberInput } from './lists';
import { bulkEntry } from './schemas';

/** Up to this many entries are written before the reply; more go to a background task (contract §10). */
const SYNC_LIMIT = 100;
/** members.json takes at most this many entries a request (the OpenAPI's "up to 1000 per call"). */
const MAX_JSON_ENTRIES = 1000;
const MAX_CSV_BYTES = 5 * 1024 * 1024;
/** Entries one import job writes before it hands the rest to the next job. */
const IMPORT_SLICE = 1000;

export interface ImportTask {
  accountId: string;
  taskId: string;
  list: string;
  upsert: boolean;
  total: number;
  status: 'processing' | 'done' | 'failed';
  error?: string;
  createdAt: string;
  finishedAt?: string;
}

const entryAt = (value: unknown, where: string): MemberInput => {
  try {
    return validate(bulkEntry(), value) as MemberInput;
  } catch (error) {
    throw error instanceof BadRequest ? new BadRequest(`${where}: ${error.message}`) : error;
  }
};

/** `members`: a JSON array (or a JSON string of one) of address strings or member objects. */
export function jsonEntries(raw: unknown): MemberInput[] {
  let value = Array.isArray(raw) && raw.length === 1 && typeof raw[0] === 'string' ? raw[0] : raw;
  if (value === undefined || value === '') throw new BadRequest("Missing parameter 'members'");
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      throw new BadRequest("Invalid parameter 'members': must be a JSON array");
    }
  }
  if (!Array.isArray(value)) throw new BadRequest("Invalid parameter 'members': must be a JSON array");
  if (value.length > MAX_JSON_ENTRIES) throw new BadRequest(`Invalid parameter 'members': at most ${MAX_JSON_ENTRIES} entries per request`);
  return value.map((entry, i) => entryAt(entry, `members[${i}]`));
}

/**
 * The rows of members.csv: a header naming `address` (and optionally `name`, `vars`,
 * `subscribed`), or, without one, an address per line with an optional name beside it. The form's
 * `subscribed` applies to rows that do not say.
 */
export function csvEntries(file: UploadedFile | undefined, subscribed: boolean | undefined): MemberInput[] {
  if (!file) throw new BadRequest("Missing parameter 'members'");
  if (file.content.length > MAX_CSV_BYTES) throw new BadRequest('CSV file is too big, max allowed size is 5 MB');
  const rows = [...csvRows(file.content.toString('utf8'))].filter((row) => row.fields.some((field) => field.trim() !== ''));
  const first = rows[0]?.fields.map((field) => field.trim().toLowerCase()) ?? [];
  const header = first.includes('address') ? first : ['address', 'name'];
  const body = first.includes('address') ? rows.slice(1) : rows;
  return body.map(({ line, fields }) => {
    const row: Record<string, string> = Object.fromEntries(header.map((name, i) => [name, fields[i] ?? '']));
    const entry = entryAt({ address: row['address'], name: row['name'], vars: row['vars'], subscribed: row['subscribed'] }, `line ${line}`);
    return entry.subscribed === undefined && subscribed !== undefined ? { ...entry, subscribed } : entry;
  });
}

/**
 * Writes the entries now (up to SYNC_LIMIT), or stores them and starts a task that writes them in
 * slices on the list queue, answering its id.
 */
export async function upload(list: ListItem, entries: MemberInput[], upsert: boolean): Promise<{ taskId?: string }> {
  if (entries.length <= SYNC_LIMIT) {
    await addMembers(list, entries, upsert);
    return {};
  }
  const taskId = randomHex(12);
  const task: ImportTask = { accountId: list.accountId, taskId, list: list.address, upsert, total: entries.length, status: 'processing', createdAt: new Date().toISOString() };
  await putJobObject(jobObjectKey(list.accountId, 'list-tasks', taskId), entries);
  await putItem(listKeys.task(list.accountId, taskId), task);
  await queueListJob({ kind: 'import', accountId: list.accountId, taskId, offset: 0 });
  return { taskId };
}

const getTask = (accountId: string, taskId: string) => getItem<ImportTask>(listKeys.task(accountId, taskId), { consistent: true });

/** Its final status: every task ends done or failed (the dead-letter consumer fails what the queue gave up on). */
export async function finishTask(accountId: string, taskId: string, status: 'done' | 'failed', error?: string): Promise<void> {
  await updateItem(listKeys.task(accountId, taskId), { status, error, finishedAt: new Date().toISOString() });
}

/** One slice of an upload task; answers the offset of the next slice, if any. Puts only, so safe to repeat. */
export async function runImportSlice(accountId: string, taskId: string, offset: number): Promise<number | undefined> {
  const task = await getTask(accountId, taskId);
  if (!task || task.status !== 'processing') return undefined;
  const list = await requireList(accountId, task.list).catch(() => undefined);
  if (!list) {
    await finishTask(accountId, taskId, 'failed', `Mailing list ${task.list} no longer exists`);
    return undefined;
  }
  const entries = await getJobObject<MemberInput[]>(jobObjectKey(accountId, 'list-tasks', taskId));
  await addMembers(list, entries.slice(offset, offset + IMPORT_SLICE), task.upsert);
  const next = offset + IMPORT_SLICE;
  if (next < entries.length) return next;
  await finishTask(accountId, taskId, 'done');
  return undefined;
}
