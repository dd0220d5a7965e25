import { deleteIfPresent, getItem, getItems, putItem, queryAll, updateItem, updateItemIf, type Key } from '../../data/store';
import type { SubjectKind } from './catalogue';
import { applyConfirmation, readConfirmations } from './confirmations';
import type { BlocklistEventItem } from './events';
import type { ListState } from './list-state';
import { defineEntity } from '../../data/key-registry';

const blocklistSubjectKeys = defineEntity(
  'blocklist subjects',
  {
    blocklistSubject: {
      what: "an IP or domain under blocklist monitoring, with its state per list: region-wide in one partition, as the check sweep reads all of them, keyed so one account's are one prefix",
      pk: 'SYSTEM#blocklist-subjects',
      sk: '<account>#<kind>#<subject>',
      key: (accountId = '', kind = '', subject = ''): Key => ({ pk: 'SYSTEM#blocklist-subjects', sk: accountId ? `${accountId}#${kind}${kind ? '#' : ''}${subject}` : '' }),
    },
  },
  [{ what: "monitored subjects: every account's (the sweep), or an account's of a kind (<account>#<kind>#)", pk: 'SYSTEM#blocklist-subjects' }],
);

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

const keyOf = (s: Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>) => blocklistSubjectKeys.blocklistSubject(s.accountId, s.kind, s.subject);

export async function findSubject(accountId: string, kind: SubjectKind, subject: string): Promise<MonitoredSubject | undefined> {
  const [item, confirmations] = await Promise.all([getItem<MonitoredSubject>(blocklistSubjectKeys.blocklistSubject(accountId, kind, subject), { consistent: true }), readConfirmations(accountId, kind)]);
  return item && applyConfirmation(item, confirmations);
}

/**
 * Subjects by reference as stored, strongly consistent, in one batch read; absent ones are left
 * out. Without their confirmations: a check needs those only for a subject that changed.
 */
export async function loadSubjects(refs: ReadonlyArray<Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>>): Promise<Map<string, MonitoredSubject>> {
  const items = await getItems<MonitoredSubject>(refs.map(keyOf), { consistent: true });
  return new Map(items.map(({ pk: _pk, sk, ...subject }) => [sk, subject]));
}

/** The key a subject has in loadSubjects' answer. */
export const subjectKeyOf = (s: Pick<MonitoredSubject, 'accountId' | 'kind' | 'subject'>) => keyOf(s).sk;

/** The account's monitored subjects of a kind (removed dedicated IPs left out), in key order. */
export async function accountSubjects(accountId: string, kind: SubjectKind): Promise<MonitoredSubject[]> {
  const { pk, sk } = blocklistSubjectKeys.blocklistSubject(accountId, kind);
  const [subjects, confirmations] = await Promise.all([queryAll<MonitoredSubject>({ pk }, sk), readConfirmations(accountId, kind)]);
  return subjects.filter((s) => !s.removed).map((s) => applyConfirmation(s, confirmations));
}

/** Every monitored subject of the region: what the sweep looks at. */
export async function allSubjects(): Promise<MonitoredSubject[]> {
  const [subjects, confirmations] = await Promise.all([queryAll<MonitoredSubject>(blocklistSubjectKeys.blocklistSubject(), ''), readConfirmations()]);
  return subjects.filter((s) => !s.removed).map((s) => applyConfirmation(s, confirmations));
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
  // Its confirmations stay until they expire: one added again has only confirmations older than its first check, which it ignores.
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
