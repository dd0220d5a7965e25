import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { addToCounter, getItem, getItems, putItem, updateItem, updateItemIf } from '../data/store';
import { findDomain } from '../domains/domain-store';
import { mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { queueForSending } from '../messages/accept';
import { acceptCopy, copyContext, type CopyContext } from '../messages/copies';
import { messageKey, messageOf, type MessageRecord } from '../messages/message-store';
import { signClaims } from '../tracking/tokens';
import { runImportSlice } from './bulk';
import { purgeMembers } from './lists';
import { EXPANSION_WORKER_TIMEOUT_SECONDS } from './list-timing';
import { getJobObject, jobObjectKey, queueListJob, type ListJob } from './jobs';
import { listKeys, membersAfter, type MemberItem } from './list-store';
import { finishPost, getPost, loadFile, type ListPost, type StoredPlan } from './post';

/**
 * The list queue's worker. A post is expanded a page of subscribed members (LIST_EXPANSION_PAGE)
 * per job, in address order, each job queueing the next: a list of any size is never one
 * invocation's work. Each member's copy is accepted exactly once, however often a job is delivered:
 *
 * - a page is claimed (one conditional write, naming this invocation's deadline) before any of
 *   its members is touched, so one live invocation at a time works on it; a duplicate job for a
 *   page held by a live invocation is dropped (if that invocation dies, its own job comes back
 *   after the queue's visibility timeout, six times the worker's timeout, and takes over);
 * - each copy's storage key is derived from the post and the member, so an invocation taking over
 *   a dead one's page finds which members it had already accepted (their message records) and
 *   only re-queues their send jobs (the send worker's claims make a second job harmless);
 * - the page is marked done only after the next page's job is queued.
 */

/** Copies composed and accepted at once: each is an S3 put, a batch write and a queue message. */
const COPIES_AT_ONCE = 16;
/** Time kept back before the deadline for one page. */
const PAGE_RESERVE_MS = 15_000;
/** Margin past a claim's deadline before it is taken over (clock skew between invocations). */
const CLAIM_GRACE_MS = 5_000;

interface PageClaim {
  state: 'working' | 'done';
  owner: string;
  until: number;
}

interface Invocation {
  owner: string;
  deadline: number;
}

/** The copy of `member` of `post`: the same key on every attempt (144 bits, as newStorageKey). */
function storageKeyOf(postId: string, member: string): string {
  return createHash('sha256').update(`${postId}\n${member}`).digest().subarray(0, 18).toString('base64url');
}

type PageOutcome = 'mine' | 'taken-over' | 'skip';

async function claimPage(post: ListPost, cursor: string, invocation: Invocation): Promise<PageOutcome> {
  const key = listKeys.page(post.postId, cursor);
  const mine: PageClaim = { state: 'working', owner: invocation.owner, until: invocation.deadline };
  if (await putItem(key, mine, { ifAbsent: true })) return 'mine';
  const existing = await getItem<PageClaim>(key, { consistent: true });
  if (!existing || existing.state === 'done' || Date.now() < existing.until + CLAIM_GRACE_MS) return 'skip';
  return (await updateItemIf(key, { owner: existing.owner, state: 'working' }, { owner: invocation.owner, until: invocation.deadline })) ? 'taken-over' : 'skip';
}

/** Posts' contents, kept while the container lives: every page of a post needs the same. */
const contexts = new Map<string, CopyContext & { replyTo: string }>();
const MAX_CONTEXTS = 8;

async function contextOf(post: ListPost): Promise<(CopyContext & { replyTo: string }) | undefined> {
  const cached = contexts.get(post.postId);
  if (cached) return cached;
  const domain = await findDomain(post.accountId, post.domain);
  if (!domain) return undefined;
  const stored = await getJobObject<StoredPlan>(jobObjectKey(post.accountId, 'list-posts', post.postId));
  const { replyTo, ...plan } = stored;
  const context = { ...copyContext({ ...plan, attachments: stored.attachments.map(loadFile), inline: stored.inline.map(loadFile) }, domain, true), replyTo };
  if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value!);
  contexts.set(post.postId, context);
  return context;
}

/** `<list@example.com>` as RFC 2919's List-Id: the address with its `@` as a dot. */
const listId = (address: string) => `<${address.replace('@', '.')}>`;

/** One member's copy: their vars and name fill `%recipient.*%`, their own link fills the list unsubscribe. */
async function acceptMemberCopy(context: CopyContext & { replyTo: string }, post: ListPost, member: MemberItem): Promise<void> {
  const { plan, domain } = context;
  const token = await signClaims({ a: post.accountId, d: domain.name, m: plan.messageId.slice(1, -1), r: member.address, l: post.listId, la: post.listAddress });
  const unsubscribe = context.base ? `${context.base}/u/${token}` : '';
  const ownReplyTo = plan.content.headers.some(([name]) => name.toLowerCase() === 'reply-to');
  await acceptCopy(context, {
    to: [{ address: post.listAddress, name: '' }],
    cc: [],
    all: [member.address],
    values: { ...member.vars, name: member.name || member.vars['name'] || '', address: member.address },
    storageKey: storageKeyOf(post.postId, member.address),
    headers: [...(ownReplyTo ? [] : [['Reply-To', context.replyTo] as [string, string]]), ['List-Id', listId(post.listAddress)]],
    placeholders: { '%mailing_list_unsubscribe_url%': unsubscribe },
  });
}

/** Members an earlier, dead invocation accepted already: their records exist; their send jobs are queued again. */
async function alreadyAccepted(post: ListPost, members: MemberItem[]): Promise<Set<string>> {
  const records = await getItems<MessageRecord>(members.map((m) => messageKey(storageKeyOf(post.postId, m.address))));
  const found = records.map((item) => messageOf(item)).filter((r): r is MessageRecord => r !== undefined);
  await mapLimit(found, COPIES_AT_ONCE, (record) => queueForSending(record));
  return new Set(found.flatMap((record) => record.recipients));
}

async function expandPage(job: Extract<ListJob, { kind: 'expand' }>, invocation: Invocation): Promise<void> {
  const post = await getPost(job.postId);
  if (!post || post.status !== 'expanding') return;
  const cursor = job.after ?? '';
  const claim = await claimPage(post, cursor, invocation);
  if (claim === 'skip') return;
  const context = await contextOf(post);
  if (!context) {
    await finishPost(post.postId, 'failed', `The domain ${post.domain} was deleted`);
    return;
  }
  const page = env().LIST_EXPANSION_PAGE;
  const members = await membersAfter(post, job.after, page, true);
  const done = claim === 'taken-over' ? await alreadyAccepted(post, members) : new Set<string>();
  const pending = members.filter((m) => !done.has(m.address));
  await mapLimit(pending, COPIES_AT_ONCE, (member) => acceptMemberCopy(context, post, member));
  if (pending.length) await addToCounter(listKeys.post(post.postId), 'accepted', pending.length);
  if (members.length === page) await queueListJob({ kind: 'expand', postId: post.postId, after: members.at(-1)!.address });
  else await finishPost(post.postId, 'done');
  await updateItem(listKeys.page(post.postId, cursor), { state: 'done' });
}

async function runJob(job: ListJob, invocation: Invocation): Promise<void> {
  if (job.kind === 'expand') return expandPage(job, invocation);
  if (job.kind === 'purge') {
    if (await purgeMembers(job.accountId, job.listId)) await queueListJob(job);
    return;
  }
  const next = await runImportSlice(job.accountId, job.taskId, job.offset);
  if (next !== undefined) await queueListJob({ ...job, offset: next });
}

export async function handler(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  const invocation = { owner: randomUUID(), deadline: Date.now() + (context?.getRemainingTimeInMillis() ?? EXPANSION_WORKER_TIMEOUT_SECONDS * 1000) };
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const job = JSON.parse(message.body) as ListJob;
      // Too close to the deadline for a whole page: back to the queue as it is, for a fresh invocation.
      if (Date.now() + PAGE_RESERVE_MS > invocation.deadline) await queueListJob(job);
      else await runJob(job, invocation);
    } catch (error) {
      logger.error('list job failed; the queue will redeliver it', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
