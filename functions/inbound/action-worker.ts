import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { simpleParser } from 'mailparser';
import { getItem, putItem, updateItem, type Key } from '../data/store';
import { TABLE_KEYS } from '../data/table';
import { defineEntity } from '../data/key-registry';
import { newEvent, recordEvent } from '../events/event-store';
import { sendingOffFor } from '../accounts/monthly-limit';
import { acceptMessage, sendingDomain } from '../messages/accept';
import { findMessage, hasHeader, loadMime, withHeader, withMessageId, type MessageRecord } from '../messages/message-store';
import { withoutFields } from '../messages/mime-headers';
import { storedMessageUrl } from '../messages/storage-url';
import { env } from '../platform/env';
import { messageId as newMessageId } from '../platform/ids';
import { retryDelayMs } from '../webhooks/delivery-job';
import { DeliveryError, postJson } from '../webhooks/http-post';
import { sign } from '../webhooks/signature';
import { signingKeyForDelivery } from '../webhooks/signing-key';
import { webhookAddressPolicy } from '../webhooks/url-policy';
import { enqueueAction, stableId, type ActionJob } from './action-job';
import { eachRecord } from './batch';
import { parsedFields } from './parsed-message';
import { routeForm } from './route-post';

/**
 * Runs route actions: POSTs the parsed message (forward to a URL, store's notification), signed
 * with the account's HTTP signing key and under the webhook address policy, retried on the webhook
 * schedule (406 stops, as for webhooks); or re-sends the original to an address through the
 * sending pipeline, where suppressions and delivery events apply. A forward that fails for good
 * gets a `failed` event.
 */

/** A claim outlives any redelivery or replay of the receipt that queued the action. */
const CLAIM_SECONDS = 86_400;
const claimKey = defineEntity('route action claims', {
  claim: {
    what: 'the claim of one attempt of a route action, by the queue message that holds it',
    pk: 'ACCT#<account>#ROUTEACTION#<delivery id>',
    sk: '<attempt>',
    key: (job: Pick<ActionJob, 'accountId' | 'deliveryId' | 'attempt'>): Key => ({ pk: `ACCT#${job.accountId}#ROUTEACTION#${job.deliveryId}`, sk: String(job.attempt) }),
  },
}).claim;

/**
 * Each attempt is claimed by the queue message that carries it: a replayed receipt queues the
 * same action again under another message id, and that copy finds the claim taken and is dropped;
 * the same message redelivered finds its own claim (not yet `done`) and goes on.
 */
async function claim(job: ActionJob, messageId: string): Promise<boolean> {
  const ttl = Math.ceil(Date.now() / 1000) + CLAIM_SECONDS;
  if (await putItem(claimKey(job), { owner: messageId, [TABLE_KEYS.ttl]: ttl }, { ifAbsent: true })) return true;
  const held = await getItem<{ owner: string; done?: boolean }>(claimKey(job), { consistent: true });
  return held?.owner === messageId && !held.done;
}

async function failedForGood(job: ActionJob, record: MessageRecord | undefined, code: number, message: string): Promise<void> {
  await recordEvent(
    job.accountId,
    job.domain,
    newEvent('failed', {
      severity: 'permanent',
      reason: 'generic',
      recipient: job.recipient,
      'recipient-domain': job.recipient.split('@')[1],
      flags: { 'is-routed': true },
      routes: [{ expression: job.route.expression, id: job.route.id, match: { recipient: job.recipient } }],
      message: { headers: { 'message-id': (record?.messageId ?? '').replace(/^<|>$/g, ''), from: record?.from, subject: record?.subject, to: record?.to } },
      'delivery-status': { code, message: `route action ${job.kind} to ${job.kind === 'forward-address' ? job.target : new URL(job.target).origin}: ${message}`, description: '', 'attempt-no': job.attempt + 1 },
    }),
  );
}

/** forward("https://...") or store(notify=...): one signed POST of the parsed message. */
async function post(job: ActionJob, record: MessageRecord, mime: Buffer): Promise<void> {
  const fields = parsedFields(await simpleParser(mime, { skipImageLinks: true, skipTextToHtml: true }));
  const base = env().PUBLIC_API_URL;
  const notify = job.kind === 'notify' && base ? { domain: job.domain, messageUrl: storedMessageUrl(base, job.domain, job.storageKey) } : undefined;
  const signature = sign(await signingKeyForDelivery(job.accountId));
  const form = await routeForm(fields, { recipient: job.recipient, sender: record.inbound?.sender ?? record.from }, signature, notify);
  let status: number | undefined;
  let outcome: string;
  try {
    const reply = await postJson(job.target, form.body, { timeoutMs: env().WEBHOOK_TIMEOUT_MS, policy: webhookAddressPolicy(), contentType: form.contentType });
    status = reply.status;
    outcome = `HTTP ${reply.status}`;
  } catch (error) {
    if (!(error instanceof DeliveryError)) throw error;
    if (error.kind === 'forbidden-address') return failedForGood(job, record, 0, error.message);
    outcome = error.message;
  }
  if (status !== undefined && status >= 200 && status < 300) return;
  if (status === 406) return failedForGood(job, record, 406, 'rejected by the receiver (406)');
  const delay = retryDelayMs(job.attempt, env().WEBHOOK_RETRY_SCALE);
  if (delay === undefined) return failedForGood(job, record, status ?? 0, `retries exhausted, last ${outcome}`);
  const now = Date.now();
  await enqueueAction({ ...job, attempt: job.attempt + 1, notBefore: now + delay, firstAttemptAt: job.firstAttemptAt ?? now });
}

/**
 * forward("someone@example.com"): the original, under a new Message-ID, through the sending
 * pipeline as the receiving domain (accepted, then delivered or failed; suppressions apply). Its
 * storage key derives from the action, so a redelivered job overwrites the same message and the
 * send worker, which sends each (storage key, recipient) once, does not send it twice.
 */
async function forwardToAddress(job: ActionJob, record: MessageRecord, mime: Buffer): Promise<void> {
  let domain;
  try {
    domain = await sendingDomain(job.accountId, job.domain);
  } catch (error) {
    return failedForGood(job, record, 0, (error as Error).message);
  }
  // A forward is the account's sending: off (its parent, or the reputation guard), it is not sent.
  const off = await sendingOffFor(job.accountId, domain.name);
  if (off) return failedForGood(job, record, 0, off);
  const messageId = newMessageId(domain.name);
  // SES sends only From addresses of verified identities: the forward comes from the receiving
  // domain's postmaster in the original sender's name, and replies still reach that sender.
  const from = `"${record.from.replace(/["\\\r\n]/g, '')} via ${domain.name}" <postmaster@${domain.name}>`;
  // The receiving domain is the author now: the original's Sender and Return-Path (which SES
  // would take as identities to send as) go with its From.
  let forwarded = withHeader(withMessageId(withoutFields(mime, (name) => name === 'sender' || name === 'return-path'), messageId), 'From', from);
  if (!hasHeader(mime, 'Reply-To')) forwarded = withHeader(forwarded, 'Reply-To', record.from);
  await acceptMessage(
    { ...record, storageKey: stableId('forward', job.deliveryId).slice(0, 24), messageId, from, recipients: [job.target.toLowerCase()], method: undefined, inbound: undefined, testMode: false, deliverAt: undefined },
    forwarded,
    domain,
  );
}

async function run(job: ActionJob): Promise<void> {
  const record = await findMessage(job.storageKey);
  const mime = record && (await loadMime(record));
  if (!record || !mime) return failedForGood(job, record, 0, 'the received message is no longer stored');
  return job.kind === 'forward-address' ? forwardToAddress(job, record, mime) : post(job, record, mime);
}

async function handle(record: SQSRecord): Promise<void> {
  const job = JSON.parse(record.body) as ActionJob;
  // Not due yet: another hop of at most 15 minutes (SQS's longest delay).
  if (job.notBefore !== undefined && job.notBefore > Date.now()) return enqueueAction(job);
  if (!(await claim(job, record.messageId))) return;
  await run(job);
  await updateItem(claimKey(job), { done: true });
}

export function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return eachRecord(event.Records, handle, 'route action failed; the queue will redeliver it');
}
