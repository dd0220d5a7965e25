import { RESOLUTIONS, bucketStart } from '../../analytics/buckets';
import { addToCounters } from '../../analytics/counter-store';
import type { StoredCount } from '../../analytics/counts';
import { mapLimit } from '../../platform/concurrency';
import { env } from '../../platform/env';
import { logger } from '../../platform/logger';
import type { AlertEventType } from '../alerts/alert-event';
import { raiseAlert } from '../alerts/raise';
import { listsFor, type Blocklist, type SubjectKind } from './catalogue';
import { recordEvent, type BlocklistEventItem } from './events';
import { nextListState, UNKNOWN, type ListState } from './list-state';
import { askList, blocklistResolver, blocklistResolvers, NO_RESOLVER, sameStrings, selfTest, type Answer } from './lookup';
import { applyConfirmation, confirmChecks, readConfirmations, type Confirmations } from './confirmations';
import { clearOutbox, loadSubjects, recordCheck, subjectKeyOf, type MonitoredSubject } from './subjects';

/** A subject as the workflow carries it. */
export interface SubjectRef {
  accountId: string;
  kind: SubjectKind;
  subject: string;
}

/** Per list zone: null when it passed its self-test this run, else why it cannot be trusted. */
export type SelfTestResults = Record<string, string | null>;

/** The self-test of every list, once per run (its outcome goes to every check of the run). */
export async function selfTestAll(lists: readonly Blocklist[], servers = blocklistResolvers()): Promise<SelfTestResults> {
  if (!servers.length) return Object.fromEntries(lists.map((list) => [list.zone, NO_RESOLVER]));
  const resolver = blocklistResolver(servers);
  const outcomes = await Promise.all(lists.map(async (list) => [list.zone, (await selfTest(resolver, list, env().SPAMHAUS_DQS_KEY)) ?? null] as const));
  for (const [zone, error] of outcomes) if (error) logger.warn('blocklist self-test failed: the list is unknown this run', { zone, error });
  return Object.fromEntries(outcomes);
}

const TRANSITION_EVENTS: Record<SubjectKind, Record<'listed' | 'delisted', AlertEventType>> = {
  ip: { listed: 'ip_listed', delisted: 'ip_delisted' },
  domain: { listed: 'domain_listed', delisted: 'domain_delisted' },
};

export type CheckOutcome = 'checked' | 'superseded' | 'gone';

/** Subjects of a task asked about at once (each asks its lists in parallel). */
export const SUBJECTS_AT_ONCE = 8;

/** What every check of a task asks with: the run's self-tests, the lists per kind, the resolver. */
interface Asking {
  selfTests: SelfTestResults;
  lists: Record<SubjectKind, readonly Blocklist[]>;
  resolver: ReturnType<typeof blocklistResolver> | undefined;
  dqsKey: string | undefined;
  /** The confirmations of a subject's account and kind, read once per task and only if asked. */
  confirmations: (subject: MonitoredSubject) => Promise<Confirmations>;
}

/** What checking one subject came to, and for a subject found as it was, what confirms it. */
interface SubjectCheck {
  outcome: CheckOutcome;
  unchanged?: { subject: MonitoredSubject; states: Record<string, ListState>; at: string };
}

/**
 * Checks subjects against every list (those that failed the run's self-test answer as errors),
 * SUBJECTS_AT_ONCE at a time: see checkOne. Subjects found as they were are then confirmed in one
 * write per account and kind (confirmations.ts) instead of one write each; should that write
 * fail, each is recorded on its own, as a changed one is.
 */
export async function checkSubjects(refs: readonly SubjectRef[], selfTests: SelfTestResults, options: { catalogue?: readonly Blocklist[] } = {}): Promise<RunOutcome[]> {
  const subjects = await loadSubjects(refs);
  const confirmationReads = new Map<string, Promise<Confirmations>>();
  const asking: Asking = {
    selfTests,
    lists: { ip: listsFor('ip', options.catalogue), domain: listsFor('domain', options.catalogue) },
    resolver: blocklistResolvers().length ? blocklistResolver() : undefined,
    dqsKey: env().SPAMHAUS_DQS_KEY,
    confirmations: ({ accountId, kind }) => {
      const owner = `${accountId}#${kind}`;
      const read = confirmationReads.get(owner) ?? readConfirmations(accountId, kind);
      confirmationReads.set(owner, read);
      return read;
    },
  };
  const checks = await mapLimit(refs, SUBJECTS_AT_ONCE, (ref) => checkOne(subjects.get(subjectKeyOf(ref)), asking));
  const groups = new Map<string, Array<NonNullable<SubjectCheck['unchanged']>>>();
  for (const { unchanged } of checks) {
    if (!unchanged) continue;
    const owner = `${unchanged.subject.accountId}#${unchanged.subject.kind}`;
    const group = groups.get(owner);
    if (group) group.push(unchanged);
    else groups.set(owner, [unchanged]);
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const { accountId, kind } = group[0]!.subject;
      // The group's earliest check time: a confirmation never dates an answer later than it came.
      const at = group.reduce((earliest, c) => (c.at < earliest ? c.at : earliest), group[0]!.at);
      try {
        await confirmChecks(accountId, kind, group.map(({ subject }) => ({ subject: subject.subject, version: subject.version })), at);
      } catch (error) {
        logger.warn('blocklist confirmations not written: recording each check on its own', { accountId, kind, subjects: group.length, error: error as Error });
        await mapLimit(group, SUBJECTS_AT_ONCE, ({ subject, states, at }) => recordCheck(subject, states, at, []));
      }
    }),
  );
  return refs.map((ref, i) => ({ outcome: checks[i]!.outcome, accountId: ref.accountId, kind: ref.kind }));
}

/**
 * Asks every list about one subject and works out the next state. A change (or a list that
 * errored) is recorded over the version read, with one event per transition; a check that lost
 * the race to another run writes nothing: that run's answers stand. A subject found as it was is
 * left for checkSubjects to confirm.
 */
async function checkOne(stored: MonitoredSubject | undefined, asking: Asking): Promise<SubjectCheck> {
  if (!stored || stored.removed) return { outcome: 'gone' };
  const { selfTests, resolver, dqsKey } = asking;
  const now = new Date().toISOString();
  const lists = asking.lists[stored.kind];
  const answers = await Promise.all(
    lists.map((list): Promise<Answer> | Answer => {
      const selfTest = selfTests[list.zone];
      if (selfTest === undefined) return { error: 'not self-tested this run' };
      if (selfTest !== null) return { error: selfTest };
      if (!resolver) return { error: NO_RESOLVER };
      const last = stored.lists[list.zone];
      const known = last?.codes && last.reasons ? { codes: last.codes, reasons: last.reasons } : undefined;
      return askList(resolver, list, stored.subject, dqsKey, known);
    }),
  );
  const asStored = nextStates(stored, lists, answers, now);
  if (!stored.outbox?.length && lists.every((list, i) => !('error' in answers[i]!) && sameState(stored.lists[list.zone], asStored.states[list.zone]!))) {
    return { outcome: 'checked', unchanged: { subject: stored, states: asStored.states, at: now } };
  }
  // A change: it is recorded over the subject as its confirmations left it (their check times).
  const subject = applyConfirmation(stored, await asking.confirmations(stored));
  const { states, events } = nextStates(subject, lists, answers, now);
  // A transition left unsent by a check that died after writing is sent now, before this one's.
  if (subject.outbox?.length) await sendTransitions(subject.outbox);
  if (!(await recordCheck(subject, states, now, events))) return { outcome: 'superseded' };
  if (events.length) {
    await sendTransitions(events);
    await clearOutbox(subject, subject.version + 1);
  }
  return { outcome: 'checked' };
}

/** Each list's next state after this run's answers, and an event per transition. */
function nextStates(subject: MonitoredSubject, lists: readonly Blocklist[], answers: readonly Answer[], now: string): { states: Record<string, ListState>; events: BlocklistEventItem[] } {
  const states: Record<string, ListState> = { ...subject.lists };
  const events: BlocklistEventItem[] = [];
  lists.forEach((list, i) => {
    const { next, transition } = nextListState(subject.lists[list.zone] ?? UNKNOWN, answers[i]!, now);
    states[list.zone] = next;
    if (!transition) return;
    events.push({
      accountId: subject.accountId,
      kind: subject.kind,
      subject: subject.subject,
      ...(subject.ipPool ? { ipPool: subject.ipPool } : {}),
      event: TRANSITION_EVENTS[subject.kind][transition],
      list: list.zone,
      listName: list.name,
      firstSeen: next.firstSeen ?? now,
      timestamp: now,
    });
  });
  return { states, events };
}

/** The same belief about a list, its check times aside: nothing pending, no error, the same listing. */
function sameState(before: ListState | undefined, after: ListState): boolean {
  return (
    before !== undefined &&
    before.state !== 'unknown' &&
    before.state === after.state &&
    !before.pending &&
    !after.pending &&
    !before.lastError &&
    before.firstSeen === after.firstSeen &&
    sameStrings(before.codes, after.codes) &&
    sameStrings(before.reasons, after.reasons)
  );
}

/**
 * Writes each transition as an event and raises its alerts. Both are idempotent (the event's key
 * and the alert's transition hash), so sending an outbox twice writes and alerts once.
 */
async function sendTransitions(events: readonly BlocklistEventItem[]): Promise<void> {
  for (const event of events) {
    await recordEvent(event);
    await raiseAlert({ accountId: event.accountId, event: event.event, subject: event.subject, list: event.list, listName: event.listName, firstSeen: event.firstSeen, timestamp: event.timestamp });
  }
}

/** What one check of a run came to, as the workflow collects them for counting. */
export type RunOutcome = { outcome: CheckOutcome; accountId: string; kind: SubjectKind } | { outcome: 'failed' };

/**
 * Counts a run's checks in the stats of each account (`ip_blocklist_monitoring`,
 * `domain_blocklist_monitoring`): one counter write set per account and run rather than per
 * check, and the run's id makes a retried count add once.
 */
export async function countChecks(runId: string, outcomes: readonly RunOutcome[], at = Date.now()): Promise<void> {
  const perAccount = new Map<string, Partial<Record<StoredCount, number>>>();
  for (const o of outcomes) {
    if (o.outcome !== 'checked') continue;
    const counts = perAccount.get(o.accountId) ?? perAccount.set(o.accountId, {}).get(o.accountId)!;
    const name: StoredCount = `${o.kind}_blocklist_monitoring`;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  for (const [accountId, counts] of perAccount) {
    await addToCounters(
      RESOLUTIONS.map((resolution) => ({ accountId, kind: [], values: [], resolution, bucket: bucketStart(at, resolution), counts })),
      `blocklist-run:${runId}:${accountId}`,
    );
  }
}
