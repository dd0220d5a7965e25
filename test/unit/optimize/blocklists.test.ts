import { CATALOGUE, findList } from '../../../functions/optimize/blocklists/catalogue';
import { nextListState, shownState, subjectState, UNKNOWN, type ListState } from '../../../functions/optimize/blocklists/list-state';
import { namesFor, reversedIp } from '../../../functions/optimize/blocklists/lookup';
import { applyConfirmation } from '../../../functions/optimize/blocklists/confirmations';
import type { MonitoredSubject } from '../../../functions/optimize/blocklists/subjects';

const list = (zone: string) => findList(zone)!;

test('answers decode per list; error codes are errors, never listings', () => {
  expect(list('zen.spamhaus.org').decode(['127.0.0.2', '127.0.0.10'])).toEqual({ listed: true, codes: ['127.0.0.2 SBL', expect.stringMatching(/^127\.0\.0\.10 PBL/)] });
  for (const code of ['127.255.255.252', '127.255.255.254', '127.255.255.255']) expect(list('zen.spamhaus.org').decode([code])).toHaveProperty('error');
  expect(list('dbl.spamhaus.org').decode(['127.0.1.255'])).toHaveProperty('error');
  expect(list('dbl.spamhaus.org').decode(['127.0.1.4'])).toEqual({ listed: true, codes: ['127.0.1.4 phishing domain'] });
  expect(list('multi.uribl.com').decode(['127.0.0.1'])).toHaveProperty('error');
  // Grey alone is URIBL's "bulk, not spam": not a listing.
  expect(list('multi.uribl.com').decode(['127.0.0.4'])).toEqual({ listed: false });
  expect(list('multi.uribl.com').decode(['127.0.0.10'])).toEqual({ listed: true, codes: ['127.0.0.10 black', '127.0.0.10 red'] });
  expect(list('multi.surbl.org').decode(['127.0.0.24'])).toEqual({ listed: true, codes: ['127.0.0.24 PH', '127.0.0.24 MW'] });
  expect(list('multi.surbl.org').decode(['127.0.0.1'])).toHaveProperty('error');
  // A resolver that rewrites NXDOMAIN to an address of its own says nothing about the domain.
  expect(list('multi.surbl.org').decode(['192.0.2.1'])).toHaveProperty('error');
  expect(list('multi.uribl.com').decode(['192.0.2.1'])).toHaveProperty('error');
  expect(list('bl.spamcop.net').decode([])).toEqual({ listed: false });
  expect(list('bl.spamcop.net').decode(['10.0.0.1'])).toHaveProperty('error');
  // No dead lists: SORBS was shut down in 2024.
  expect(CATALOGUE.some((l) => l.zone.includes('sorbs'))).toBe(false);
});

test('query names: reversed IPv4, IPv6 nibbles, exact and registered domains', () => {
  expect(reversedIp('203.0.113.7')).toBe('7.113.0.203');
  expect(reversedIp('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2');
  expect(namesFor(list('dbl.spamhaus.org'), 'mail.news.example.co.uk')).toEqual(['mail.news.example.co.uk', 'example.co.uk']);
  expect(namesFor(list('multi.uribl.com'), 'mail.news.example.co.uk')).toEqual(['example.co.uk']);
});

test('a change needs two agreeing runs; errors change nothing', () => {
  const listed = { listed: true as const, codes: ['127.0.0.2'], reasons: [] };
  const clear = { listed: false as const };
  let state: ListState = UNKNOWN;
  ({ next: state } = nextListState(state, clear, 't1'));
  expect(state.state).toBe('clear');
  let step = nextListState(state, listed, 't2');
  expect(step).toMatchObject({ next: { state: 'clear', pending: { state: 'listed', since: 't2' } } });
  expect(step.transition).toBeUndefined();
  // An error between the two runs neither confirms nor cancels.
  step = nextListState(step.next, { error: 'DNS ESERVFAIL' }, 't3');
  expect(step.next).toMatchObject({ state: 'clear', pending: { state: 'listed' }, lastError: 'DNS ESERVFAIL' });
  step = nextListState(step.next, listed, 't4');
  expect(step).toMatchObject({ next: { state: 'listed', firstSeen: 't2', lastSeen: 't4' }, transition: 'listed' });
  // One clean answer is not a delisting; the listing answer after it cancels it.
  step = nextListState(step.next, clear, 't5');
  expect(step.next.state).toBe('listed');
  step = nextListState(step.next, listed, 't6');
  expect(step.next.pending).toBeUndefined();
  step = nextListState(nextListState(step.next, clear, 't7').next, clear, 't8');
  expect(step).toMatchObject({ next: { state: 'clear', firstSeen: 't2' }, transition: 'delisted' });
});

test('a clean state no one has confirmed for long reads unknown; the subject is listed, unknown or healthy', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  expect(shownState({ state: 'clear', answeredAt: '2026-11-26T11:59:00Z' }, 120_000, now)).toBe('clear');
  expect(shownState({ state: 'clear', answeredAt: '2026-11-26T11:00:00Z' }, 120_000, now)).toBe('unknown');
  expect(shownState({ state: 'listed', answeredAt: '2026-11-26T11:00:00Z' }, 120_000, now)).toBe('listed');
  expect(subjectState(['clear', 'listed', 'unknown'])).toBe('listed');
  expect(subjectState(['clear', 'unknown'])).toBe('unknown');
  expect(subjectState([])).toBe('unknown');
  expect(subjectState(['clear', 'clear'])).toBe('healthy');
});

test('a confirmation moves the check times of the version it confirms, and of no other', () => {
  const subject: MonitoredSubject = {
    accountId: 'a',
    kind: 'ip',
    subject: '203.0.113.7',
    source: 'user',
    addedAt: 't0',
    version: 3,
    checkedAt: '2026-11-26T10:00:00.000Z',
    lists: {
      'zen.spamhaus.org': { state: 'listed', firstSeen: '2026-11-26T09:00:00.000Z', lastSeen: '2026-11-26T10:00:00.000Z', answeredAt: '2026-11-26T10:00:00.000Z', codes: ['127.0.0.2'] },
      'bl.spamcop.net': { state: 'clear', answeredAt: '2026-11-26T10:00:00.000Z' },
    },
  };
  const at = '2026-11-26T11:00:00.000Z';
  const ref = 'a#ip#203.0.113.7';
  const moved = applyConfirmation(subject, new Map([[ref, [{ version: 3, at: '2026-11-26T10:30:00.000Z' }, { version: 3, at }, { version: 2, at: '2026-11-26T12:00:00.000Z' }]]]));
  // The latest confirmation of the version read wins; one of another version says nothing.
  expect(moved.checkedAt).toBe(at);
  expect(moved.lists['zen.spamhaus.org']).toMatchObject({ state: 'listed', firstSeen: '2026-11-26T09:00:00.000Z', lastSeen: at, answeredAt: at });
  expect(moved.lists['bl.spamcop.net']).toMatchObject({ state: 'clear', answeredAt: at });
  expect(moved.lists['bl.spamcop.net']!.lastSeen).toBeUndefined();
  // The subject changed since (version 4 written), or its own write is newer, or it is another account's: nothing moves.
  expect(applyConfirmation(subject, new Map([[ref, [{ version: 2, at }]]]))).toBe(subject);
  expect(applyConfirmation(subject, new Map([[ref, [{ version: 3, at: '2026-11-26T09:30:00.000Z' }]]]))).toBe(subject);
  expect(applyConfirmation(subject, new Map([['b#ip#203.0.113.7', [{ version: 3, at }]]]))).toBe(subject);
});
