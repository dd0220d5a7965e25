import { randomBytes } from 'node:crypto';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { getItem, getItems, isLive, queryAll, updateItemIf, type Key } from '../../data/store';
import { sfnClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { randomHex } from '../../platform/ids';
import { getBytes, INSPECT_RETENTION_DAYS } from '../common/inspect-store';
import { countUsage } from '../common/usage';
import type { ClientInfo } from './catalog';
import { defineEntity } from '../../data/key-registry';

export const previewKeys = defineEntity(
  'preview tests',
  {
    previewTest: { what: 'an email preview test of an account (ids are random, so the partition is listed and sorted by creation time)', pk: 'ACCT#<account>#PREVIEW', sk: '<id>', key: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEW`, sk: id }) },
    previewClient: { what: 'one client of a preview test: its status, attempts and screenshots, updated on its own', pk: 'ACCT#<account>#PREVIEW#<test id>', sk: '<client id>', key: (accountId: string, testId: string, clientId = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEW#${testId}`, sk: clientId }) },
  },
  [
    { what: "an account's preview tests", pk: 'ACCT#<account>#PREVIEW' },
    { what: "a preview test's clients", pk: 'ACCT#<account>#PREVIEW#<test id>' },
  ],
);

/** Preview tests are kept 90 days (spec Limits), as inspection tests are. */
export const PREVIEW_RETENTION_SECONDS = INSPECT_RETENTION_DAYS * 86_400;
/** A client still processing this long after its attempt started is re-queued (spec: 3 minutes). */
export const REQUEUE_AFTER_SECONDS = 180;
/** Attempts before a client is bounced: the first and two re-queues. */
export const MAX_ATTEMPTS = 3;
/** Reprocesses a client of a test may have (Email on Acid's sample: 20). */
export const REPROCESS_BUDGET = 20;

export type ClientStatus = 'Processing' | 'Complete' | 'Bounced' | 'Pending';
export type CheckKind = 'link_validation' | 'image_validation' | 'accessibility' | 'code_analysis';
export type CheckRef = { items: { id: string; links: { self: string } } } | { errors: Array<{ status: string; title: string; detail: string }> } | null;

export interface PreviewTest {
  accountId: string;
  id: string;
  subject: string;
  /** Unix seconds. */
  date: number;
  createdAt: string;
  ttl: number;
  clients: string[];
  imageBlocking: boolean;
  headers: Record<string, string>;
  referenceId?: string;
  customerId?: string;
  contentChecking: Record<CheckKind, CheckRef>;
  /** Fields accepted and kept whose meaning Mailgun does not document (spam, user_id, folder_id, project_name). */
  extra?: Record<string, unknown>;
  /** The test at the real-client service, when some of its clients are real ones. */
  realTest?: { service: string; remoteId: string };
}

export interface PreviewClientState {
  accountId: string;
  testId: string;
  clientId: string;
  status: ClientStatus;
  /** Which attempt series is current: a re-queue or reprocess starts a new one, and only its results count. */
  run: number;
  attempts: number;
  /** Unix seconds the current attempt started. */
  submitted: number;
  completed?: number;
  bounceCode?: string;
  bounceMessage?: string;
  reprocessesLeft: number;
  /** What the client's transform changed (transforms/transform-for-client.ts). */
  applied?: string[];
  /** The screenshots rendered for the current run, by name (`default`, `no_images`, ...). */
  screenshots?: string[];
  /** A real-client tier's client, as the service listed it when the test was made. */
  real?: ClientInfo;
  ttl: number;
}

/** One client's part of an execution of the preview workflow. */
export interface RenderItem {
  accountId: string;
  testId: string;
  clientId: string;
  run: number;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A preview test id: 45 alphanumerics, as Mailgun's (contract §0), one per byte of `bytes` (45 or more). */
export function previewTestId(bytes: Buffer = randomBytes(45)): string {
  return [...bytes.subarray(0, 45)].map((byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

const isPreviewTestId = (id: string) => /^[A-Za-z0-9]{45}$/.test(id);

const prefix = (accountId: string, testId: string) => `${accountId}/preview/${testId}`;
export const contentKey = (accountId: string, testId: string) => `${prefix(accountId, testId)}/content.html`;
export const screenshotKey = (state: Pick<PreviewClientState, 'accountId' | 'testId' | 'clientId' | 'run'>, name: string) => `${prefix(state.accountId, state.testId)}/${state.clientId}/r${state.run}/${name}.png`;
export const exportKey = (accountId: string, testId: string, jobId: string) => `${prefix(accountId, testId)}/exports/${jobId}.zip`;
export const testObjectsPrefix = (accountId: string, testId: string) => `${prefix(accountId, testId)}/`;

export async function findPreviewTest(accountId: string, testId: string): Promise<PreviewTest | undefined> {
  if (!isPreviewTestId(testId)) return undefined;
  const test = await getItem<PreviewTest>(previewKeys.previewTest(accountId, testId), { consistent: true });
  return test && isLive(test) ? test : undefined;
}

/** Every live preview test of the account, newest first. */
export async function listPreviewTests(accountId: string, now = Date.now()): Promise<PreviewTest[]> {
  const tests = await queryAll<PreviewTest>({ pk: previewKeys.previewTest(accountId).pk }, '');
  return tests.filter((test) => isLive(test, now)).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** The test's clients' states, in the test's order. */
export async function clientStates(test: Pick<PreviewTest, 'accountId' | 'id' | 'clients'>): Promise<PreviewClientState[]> {
  const states = await getItems<PreviewClientState>(
    test.clients.map((clientId) => previewKeys.previewClient(test.accountId, test.id, clientId)),
    { consistent: true },
  );
  const byId = new Map(states.map((state) => [state.clientId, state]));
  return test.clients.flatMap((id) => {
    const state = byId.get(id);
    return state ? [state] : [];
  });
}

export function clientState(accountId: string, testId: string, clientId: string): Promise<PreviewClientState | undefined> {
  return getItem<PreviewClientState>(previewKeys.previewClient(accountId, testId, clientId), { consistent: true });
}

/** Starts one execution of the preview workflow over the clients' current runs (lib/workflows/email-preview.asl.json). */
export async function startRenders(clients: readonly RenderItem[]): Promise<void> {
  if (!clients.length) return;
  const stateMachineArn = env().PREVIEW_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('PREVIEW_STATE_MACHINE_ARN is not configured');
  // Only what a render step reads goes into the execution, whatever else the caller's states hold.
  const items: RenderItem[] = clients.map(({ accountId, testId, clientId, run }) => ({ accountId, testId, clientId, run }));
  await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name: `preview-${randomHex(16)}`, input: JSON.stringify({ clients: items }) }));
}

/** A test's HTML as it was given, or undefined once it is gone from storage. */
export async function readContent(accountId: string, testId: string): Promise<string | undefined> {
  return (await getBytes(contentKey(accountId, testId)))?.bytes.toString('utf8');
}

/**
 * Moves a client to a new run (a re-queue or a reprocess) if it is still on `state.run`, and
 * answers the new state; undefined when another writer moved it first.
 */
export async function nextRun(state: PreviewClientState, changes: Partial<PreviewClientState>, now = Date.now()): Promise<PreviewClientState | undefined> {
  const next = { ...changes, run: state.run + 1, status: 'Processing' as const, submitted: Math.floor(now / 1000), completed: undefined, bounceCode: undefined, bounceMessage: undefined };
  const moved = await updateItemIf(previewKeys.previewClient(state.accountId, state.testId, state.clientId), { run: state.run }, next);
  return moved ? { ...state, ...next } : undefined;
}

/** The usage counter batch of one client's run: counted once, however often its ending is retried. */
export const previewUsageRun = (item: RenderItem) => `preview:${item.testId}:${item.clientId}:${item.run}`;

/** Ends the current run of a client as Bounced, if it is still processing that run, and counts it under email_preview_failed. */
export async function bounceClient(item: RenderItem, code: string, message: string, now = Date.now()): Promise<boolean> {
  const bounced = await updateItemIf(previewKeys.previewClient(item.accountId, item.testId, item.clientId), { run: item.run, status: 'Processing' }, { status: 'Bounced', completed: Math.floor(now / 1000), bounceCode: code, bounceMessage: message.slice(0, 500) });
  if (bounced) await countUsage(item.accountId, 'email_preview', true, previewUsageRun(item), now);
  return bounced;
}
