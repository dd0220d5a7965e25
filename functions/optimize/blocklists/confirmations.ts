import { TABLE_KEYS } from '../../data/table';
import { isLive, putItem, queryAll, type Key } from '../../data/store';
import { randomHex } from '../../platform/ids';
import type { SubjectKind } from './catalogue';
import { staleAfterMs, type ListState } from './list-state';
import { defineEntity } from '../../data/key-registry';

const blocklistConfirmationKeys = defineEntity(
  'blocklist confirmations',
  {
    blocklistConfirmation: {
      what: "a check task's word that it found these subjects of an account as they were: region-wide in one partition, as the sweep reads all of them",
      pk: 'SYSTEM#blocklist-confirmations',
      sk: '<account>#<kind>#<ISO time>#<nonce>',
      key: (accountId = '', kind = '', at = '', nonce = ''): Key => ({ pk: 'SYSTEM#blocklist-confirmations', sk: accountId ? `${accountId}#${kind}#${at && `${at}#${nonce}`}` : '' }),
    },
  },
  [{ what: "live confirmations: every account's (the sweep), or an account's of a kind (<account>#<kind>#)", pk: 'SYSTEM#blocklist-confirmations' }],
);

/**
 * A check that finds a subject as it was (every list answered, none changed) does not rewrite the
 * subject: its task writes one item for all such subjects of an account, "these subjects, at these
 * versions, were found as they were at T", and readers apply it, moving a subject's and its lists'
 * check times to T as the skipped writes would have. A confirmation of another version (the
 * subject changed since) says nothing. Each is kept as long as it can vouch for a state
 * (staleAfterMs), then expires.
 */
interface ConfirmationItem {
  at: string;
  /** `<subject> <version>` lines. */
  entries: string;
  ttl: number;
}

export interface Confirmation {
  version: number;
  at: string;
}

/** Confirmations by `<account>#<kind>#<subject>`. */
export type Confirmations = Map<string, Confirmation[]>;

const subjectRef = (accountId: string, kind: string, subject: string) => `${accountId}#${kind}#${subject}`;

/** Records that a task found these subjects of an account, at these versions, as they were at `at`: one write. */
export async function confirmChecks(accountId: string, kind: SubjectKind, confirmed: ReadonlyArray<{ subject: string; version: number }>, at: string): Promise<void> {
  if (!confirmed.length) return;
  const item: ConfirmationItem = {
    at,
    entries: confirmed.map((c) => `${c.subject} ${c.version}`).join('\n'),
    [TABLE_KEYS.ttl]: Math.ceil((Date.parse(at) + staleAfterMs()) / 1000),
  } as ConfirmationItem;
  await putItem(blocklistConfirmationKeys.blocklistConfirmation(accountId, kind, at, randomHex(4)), item);
}

/** The live confirmations of an account's subjects of a kind, or of every account's (no arguments). */
export async function readConfirmations(accountId?: string, kind?: SubjectKind): Promise<Confirmations> {
  const { pk, sk } = blocklistConfirmationKeys.blocklistConfirmation(accountId, kind);
  const items = await queryAll<ConfirmationItem & { sk: string }>({ pk }, sk, { withSortKey: true });
  const found: Confirmations = new Map();
  const now = Date.now();
  for (const item of items) {
    if (!isLive(item, now)) continue;
    const [owner = '', ownerKind = ''] = item.sk.split('#');
    for (const line of item.entries.split('\n')) {
      const [subject = '', version = ''] = line.split(' ');
      const ref = subjectRef(owner, ownerKind, subject);
      const confirmation = { version: Number(version), at: item.at };
      const known = found.get(ref);
      if (known) known.push(confirmation);
      else found.set(ref, [confirmation]);
    }
  }
  return found;
}

/** What applying a confirmation reads and moves of a subject (a MonitoredSubject of subjects.ts, which reads through here). */
interface ConfirmableSubject {
  accountId: string;
  kind: SubjectKind;
  subject: string;
  version: number;
  checkedAt?: string;
  lists: Record<string, ListState>;
}

/** The subject as its checks left it: its own item, moved on by the latest confirmation of its version. */
export function applyConfirmation<S extends ConfirmableSubject>(subject: S, confirmations: Confirmations): S {
  let at = subject.checkedAt ?? '';
  for (const c of confirmations.get(subjectRef(subject.accountId, subject.kind, subject.subject)) ?? []) {
    if (c.version === subject.version && c.at > at) at = c.at;
  }
  if (at === (subject.checkedAt ?? '')) return subject;
  const lists: Record<string, ListState> = {};
  for (const zone in subject.lists) {
    const state = subject.lists[zone]!;
    lists[zone] = state.state === 'listed' ? { ...state, answeredAt: at, lastSeen: at } : { ...state, answeredAt: at };
  }
  return { ...subject, checkedAt: at, lists };
}
