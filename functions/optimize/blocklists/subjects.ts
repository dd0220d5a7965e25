import { keys } from '../../data/db';
import { deleteIfPresent, getItem, getItems, putItem, queryAll, updateItem, updateItemIf, upsertAttributes } from '../../data/store';
import type { SubjectKind } from './catalogue';
import type { BlocklistEventItem } from './events';
import type { ListState } from './list-state';

/** Why a subject is monitored: the user added it, it is one of the account's dedicated IPs, or a verified managed domain. */
export type SubjectSource = 'user' | 'dedicated' | 'managed-domain';

/** An IP or domain under blocklist monitoring and what each list said of it. */
export interface MonitoredSubject {
  accountId: string;
  kind: SubjectKind;
  subject: string;
  source: SubjectSource;
  ipPool?: string;
  description?: string;
  addedAt: string;
  /**
   * A dedicated IP its owner removed from monitoring: kept so the sweep does not add it again
   * (adding it by hand brings it back).
   */
  removed?: boolean;
  /** Bumped by every check: a check writes only over the version it read, so overlapping runs cannot both transition. */
  version: number;
  checkedAt?: string;
  lists: Record<string, ListState>;
  /**
   * Transitions recorded with the state that made them, not yet written as events and alerts: a
   * check that dies after its write leaves them here, and the next check sends them.
   */
  outbox?: BlocklistEventItem[];
}

const keyOf = (s: Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>) => keys.blocklistSubject(s.accountId, s.kind, s.subject);

/**
 * A check that found a subject as it was (every list answered, none changed) does not rewrite the
 * subject: it records "version V was confirmed at T" as one attribute of its account's
 * confirmations item (one write per account and kind for a whole check task), and readers apply
 * it, moving the subject's and its lists' check times to T as the skipped write would have. A
 * confirmation of an older version (the subject changed since) says nothing and is ignored.
 */
type Confirmations = Record<string, unknown>;

/** A subject's attribute in its confirmations item; the prefix keeps it clear of the item's keys. */
const confirmationAttribute = (subject: string) => `c:${subject}`;

const confirmationsKey = (s: Pick<MonitoredSubject, 'accountId' | 'kind'>) => keys.blocklistConfirmations(s.accountId, s.kind);

/** The subject as its last check left it: its own item, moved on by a later confirmation if any. */
export function applyConfirmation(subject: MonitoredSubject, confirmations: Confirmations | undefined): MonitoredSubject {
  const entry = confirmations?.[confirmationAttribute(subject.subject)];
  if (typeof entry !== 'string') return subject;
  const [version, at] = entry.split(' ') as [string, string];
  if (Number(version) !== subject.version || (subject.checkedAt && subject.checkedAt >= at)) return subject;
  const lists = Object.fromEntries(
    Object.entries(subject.lists).map(([zone, state]) => [zone, { ...state, answeredAt: at, checkedAt: at, ...(state.state === 'listed' ? { lastSeen: at } : {}) }]),
  );
  return { ...subject, checkedAt: at, lists };
}

/** Records that checks found these subjects (at these versions) as they were: one write. */
export async function confirmChecks(accountId: string, kind: SubjectKind, confirmed: ReadonlyArray<{ subject: string; version: number; at: string }>): Promise<void> {
  if (!confirmed.length) return;
  await upsertAttributes(keys.blocklistConfirmations(accountId, kind), Object.fromEntries(confirmed.map((c) => [confirmationAttribute(c.subject), `${c.version} ${c.at}`])));
}

export async function findSubject(accountId: string, kind: SubjectKind, subject: string): Promise<MonitoredSubject | undefined> {
  const [item, confirmations] = await Promise.all([
    getItem<MonitoredSubject>(keys.blocklistSubject(accountId, kind, subject), { consistent: true }),
    getItem<Confirmations>(keys.blocklistConfirmations(accountId, kind), { consistent: true }),
  ]);
  return item && applyConfirmation(item, confirmations);
}

/** Subjects by reference, in one strongly consistent batch read with their confirmations; absent ones are left out. */
export async function loadSubjects(refs: ReadonlyArray<Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>>): Promise<Map<string, MonitoredSubject>> {
  const items = await getItems<Record<string, unknown>>([...refs.map(keyOf), ...refs.map(confirmationsKey)], { consistent: true });
  const { pk: confirmationsPartition } = keys.blocklistConfirmations();
  const confirmations = new Map(items.filter((item) => item.pk === confirmationsPartition).map((item) => [item.sk, item]));
  const found = new Map<string, MonitoredSubject>();
  for (const { pk, sk, ...attributes } of items) {
    if (pk === confirmationsPartition) continue;
    const subject = attributes as unknown as MonitoredSubject;
    found.set(sk as string, applyConfirmation(subject, confirmations.get(confirmationsKey(subject).sk)));
  }
  return found;
}

/** The key a subject has in loadSubjects' answer. */
export const subjectKeyOf = (s: Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>) => keyOf(s).sk;

/** The account's monitored subjects of a kind (removed dedicated IPs left out), in key order. */
export async function accountSubjects(accountId: string, kind: SubjectKind): Promise<MonitoredSubject[]> {
  const { pk, sk } = keys.blocklistSubject(accountId, kind);
  const [subjects, confirmations] = await Promise.all([queryAll<MonitoredSubject>({ pk }, sk), getItem<Confirmations>(keys.blocklistConfirmations(accountId, kind))]);
  return subjects.filter((s) => !s.removed).map((s) => applyConfirmation(s, confirmations));
}

/** Every monitored subject of the region: what the sweep looks at. */
export async function allSubjects(): Promise<MonitoredSubject[]> {
  const [subjects, confirmations] = await Promise.all([
    queryAll<MonitoredSubject>(keys.blocklistSubject(), ''),
    queryAll<Confirmations & { sk: string }>(keys.blocklistConfirmations(), '', { withSortKey: true }),
  ]);
  const bySortKey = new Map(confirmations.map((c) => [c.sk, c]));
  return subjects.filter((s) => !s.removed).map((s) => applyConfirmation(s, bySortKey.get(confirmationsKey(s).sk)));
}

/** Adds a subject; false when the account monitors it already. */
export async function addSubject(subject: Omit<MonitoredSubject, 'version' | 'lists'>): Promise<boolean> {
  return putItem(keyOf(subject), { ...subject, version: 0, lists: {} }, { ifAbsent: true });
}

/** Adds back a removed dedicated IP (its state kept); false when it is monitored already. */
export async function restoreSubject(subject: MonitoredSubject, changes: Partial<MonitoredSubject>): Promise<boolean> {
  return updateItemIf(keyOf(subject), { removed: true }, { ...changes, removed: undefined });
}

export const updateSubject = (subject: MonitoredSubject, changes: Partial<MonitoredSubject>) => updateItem<MonitoredSubject>(keyOf(subject), changes);

/** Stops monitoring: a dedicated IP is kept as removed, anything else is deleted. */
export async function removeSubject(subject: MonitoredSubject): Promise<void> {
  if (subject.source === 'dedicated') await updateItem(keyOf(subject), { removed: true });
  else await deleteIfPresent(keyOf(subject));
  // A subject added again starts at version 0: an old confirmation must not date its first check.
  await upsertAttributes(confirmationsKey(subject), { [confirmationAttribute(subject.subject)]: undefined });
}

/**
 * Records a check's result and its transitions (the outbox) over the version it started from, in
 * one write; false when another check got there first.
 */
export function recordCheck(subject: MonitoredSubject, lists: Record<string, ListState>, at: string, outbox: BlocklistEventItem[]): Promise<boolean> {
  return updateItemIf(keyOf(subject), { version: subject.version }, { lists, checkedAt: at, version: subject.version + 1, outbox: outbox.length ? outbox : undefined });
}

/** Empties the outbox once its transitions are sent, unless a later check has written since. */
export function clearOutbox(subject: Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>, version: number): Promise<boolean> {
  return updateItemIf(keyOf(subject), { version }, { outbox: undefined });
}
