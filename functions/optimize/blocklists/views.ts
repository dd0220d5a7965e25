import { commentsFor, listsFor, type Blocklist } from './catalogue';
import type { BlocklistEventItem } from './events';
import { shownState, staleAfterMs, subjectState, UNKNOWN, type ListState } from './list-state';
import type { MonitoredSubject } from './subjects';

/** Mailgun's "unset" time: its Go client reads these fields as non-pointer times (optimize contract 0). */
const ZERO_TIME = '0001-01-01T00:00:00Z';

interface ListView {
  list: Blocklist;
  state: ListState;
  shown: ListState['state'];
}

function listViews(subject: MonitoredSubject, now: number): ListView[] {
  return listsFor(subject.kind).map((list) => {
    const state = subject.lists[list.zone] ?? UNKNOWN;
    return { list, state, shown: shownState(state, staleAfterMs(), now) };
  });
}

function listing({ list, state }: ListView, subject: string) {
  return {
    list: list.zone,
    name: list.name,
    comments: commentsFor(list, subject, [...(state.codes ?? []), ...(state.reasons ?? [])]),
    first_seen: state.firstSeen ?? null,
    last_seen: state.lastSeen ?? ZERO_TIME,
  };
}

/**
 * Why a list says nothing (an addition to Mailgun's shape): the honesty rule's `unknown`, with
 * its reason, so a user can tell "not listed" from "could not ask".
 */
function unknownLists(views: ListView[]) {
  return views
    .filter((v) => v.shown === 'unknown')
    .map(({ list, state }) => ({ list: list.zone, name: list.name, reason: state.lastError ?? (state.answeredAt ? 'no answer from the list for three check periods' : 'not checked yet') }));
}

/** IPAddress of optimize contract 1.6. */
export function ipJson(subject: MonitoredSubject, now = Date.now()) {
  const views = listViews(subject, now);
  return {
    ip: subject.subject,
    ip_pool: subject.ipPool ?? '',
    description: subject.description ?? '',
    state: subjectState(views.map((v) => v.shown)),
    listed: views.filter((v) => v.shown === 'listed').map((v) => ({ ...listing(v, subject.subject), delist_requested_at: ZERO_TIME })),
    unknown_lists: unknownLists(views),
    last_checked_at: subject.checkedAt ?? ZERO_TIME,
  };
}

/** A monitored domain of optimize contract 1.7. */
export function domainJson(subject: MonitoredSubject, now = Date.now()) {
  const views = listViews(subject, now);
  return {
    domain: subject.subject,
    updated_at: subject.checkedAt ?? subject.addedAt,
    state: subjectState(views.map((v) => v.shown)),
    listed: views.filter((v) => v.shown === 'listed').map((v) => listing(v, subject.subject)),
    unknown_lists: unknownLists(views),
    last_checked_at: subject.checkedAt ?? ZERO_TIME,
  };
}

/**
 * The lists every monitored domain is checked on (an addition to the contract's reply): with
 * `listed` and `unknown_lists`, a list named in neither answered "not listed".
 */
export const domainBlocklistsJson = () => listsFor('domain').map((list) => ({ list: list.zone, name: list.name }));

/** The lists a domain is on now (`/v1/monitoring/domains/{domain}/blocklists`). */
export function domainListings(subject: MonitoredSubject, now = Date.now()) {
  return listViews(subject, now)
    .filter((v) => v.shown === 'listed')
    .map((v) => listing(v, subject.subject));
}

export const ipEventJson = (e: BlocklistEventItem) => ({ ip: e.subject, ip_pool: e.ipPool ?? '', timestamp: e.timestamp, event: e.event, blocklist: e.listName, list: e.list });

export const domainEventJson = (e: BlocklistEventItem) => ({ timestamp: e.timestamp, event: e.event, domain: e.subject, account_id: e.accountId, list: e.list, name: e.listName });
