import { bucketId, bucketsBetween, bucketStart } from '../../../functions/analytics/buckets';
import { countsOfEvent, derivedCounts, type Counts } from '../../../functions/analytics/counts';
import { geolocate } from '../../../functions/analytics/geolocation';
import { providerOf } from '../../../functions/analytics/providers';
import { RATES } from '../../../functions/analytics/rates';
import { combinations, eventValues, KINDS, smallestKindWith, valuesKey, valuesOfKey } from '../../../functions/analytics/slices';
import { parseDuration, rfc2822, timeRange } from '../../../functions/analytics/time-range';
import type { EventData, EventName } from '../../../functions/events/event-store';

const event = (name: EventName, fields: Record<string, unknown> = {}): EventData => ({ event: name, id: 'id', timestamp: 1_700_000_000, ...fields });

describe('event to counts', () => {
  it('counts each accepted recipient as outgoing and processed', () => {
    expect(countsOfEvent(event('accepted'))).toEqual(['accepted_outgoing', 'processed']);
  });

  it('splits deliveries by attempt', () => {
    expect(countsOfEvent(event('delivered', { 'delivery-status': { 'attempt-no': 1 } }))).toEqual(['delivered_smtp', 'sent', 'delivered_first_attempt']);
    expect(countsOfEvent(event('delivered', { 'delivery-status': { 'attempt-no': 3 } }))).toEqual(['delivered_smtp', 'sent', 'delivered_subsequent']);
  });

  it('keeps suppressions out of sent and bounced', () => {
    for (const [reason, count] of [
      ['suppress-bounce', 'suppressed_bounces'],
      ['suppress-unsubscribe', 'suppressed_unsubscribed'],
      ['suppress-complaint', 'suppressed_complaints'],
    ] as const) {
      expect(countsOfEvent(event('failed', { severity: 'permanent', reason }))).toEqual(['permanent_failed', count]);
    }
  });

  it('tells hard bounces from soft ones, and marks old, espblock and delayed bounces', () => {
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'bounce' }))).toEqual(['permanent_failed', 'sent', 'hard_bounces']);
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'generic' }))).toEqual(['permanent_failed', 'sent', 'soft_bounces']);
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'old' }))).toEqual(['permanent_failed', 'sent', 'soft_bounces', 'permanent_failed_old']);
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'espblock' }))).toContain('permanent_failed_esp_block');
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'bounce', flags: { 'is-delayed-bounce': true } }))).toContain('delayed_bounce');
  });

  it('counts temporary failures, and a first attempt that was delayed', () => {
    expect(countsOfEvent(event('failed', { severity: 'temporary', reason: 'generic', 'delivery-status': { 'attempt-no': 1 } }))).toEqual(['temporary_failed', 'delayed_first_attempt']);
    expect(countsOfEvent(event('failed', { severity: 'temporary', reason: 'espblock', 'delivery-status': { 'attempt-no': 2 } }))).toEqual(['temporary_failed', 'temporary_failed_esp_block']);
  });

  it('counts full mailboxes and content refusals by SES bounce sub-type, for the health score', () => {
    expect(countsOfEvent(event('failed', { severity: 'temporary', reason: 'generic', 'delivery-status': { 'attempt-no': 2, description: 'MailboxFull' } }))).toEqual(['temporary_failed', 'mailbox_full']);
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { description: 'ContentRejected' } }))).toEqual(['permanent_failed', 'sent', 'soft_bounces', 'content_rejected']);
    expect(countsOfEvent(event('failed', { severity: 'permanent', reason: 'bounce', 'delivery-status': { description: 'General' } }))).toEqual(['permanent_failed', 'sent', 'hard_bounces']);
  });

  it('counts unique opens and clicks only for the first', () => {
    expect(countsOfEvent(event('opened'), { opened: true })).toEqual(['opened', 'unique_opened']);
    expect(countsOfEvent(event('opened'), { opened: false })).toEqual(['opened']);
    expect(countsOfEvent(event('clicked'), { clicked: true })).toEqual(['clicked', 'unique_clicked']);
    expect(countsOfEvent(event('rejected'))).toEqual([]);
  });

  it('derives the sums Mailgun reports', () => {
    const c = derivedCounts({ accepted_outgoing: 5, delivered_smtp: 3, temporary_failed: 1, permanent_failed: 2, hard_bounces: 1, soft_bounces: 0, delivered_subsequent: 1 });
    expect(c).toMatchObject({ accepted: 5, accepted_incoming: 0, delivered: 3, failed: 3, bounced: 1, delivered_two_plus_attempts: 1 });
  });
});

describe('rates', () => {
  const all = (c: Counts) => derivedCounts(c);

  it('are percentages with two decimals, as strings', () => {
    const c = all({ delivered_smtp: 3, sent: 4, opened: 2, unique_opened: 1, clicked: 1, hard_bounces: 1 });
    expect(RATES['delivered_rate']!(c)).toBe('75.00');
    expect(RATES['opened_rate']!(c)).toBe('66.67');
    expect(RATES['unique_opened_rate']!(c)).toBe('33.33');
    expect(RATES['clicked_rate']!(c)).toBe('33.33');
    expect(RATES['bounce_rate']!(c)).toBe('25.00');
  });

  it('are 0.00 when nothing was sent', () => {
    for (const rate of Object.values(RATES)) expect(rate(all({}))).toBe('0.00');
  });

  it('use processed for delayed_first_attempt_rate', () => {
    expect(RATES['delayed_first_attempt_rate']!(all({ processed: 8, delayed_first_attempt: 2 }))).toBe('25.00');
  });
});

describe('slices', () => {
  const values = eventValues({
    accountId: 'a',
    domain: 'Example.com',
    data: event('opened', { tags: ['t1', 't2', 't1'], recipient: 'x@Gmail.com', 'client-info': { 'device-type': 'mobile' }, geolocation: { country: 'US' } }),
  });

  it('reads every attribute an event has', () => {
    expect(values).toEqual({ domain: ['example.com'], tag: ['t1', 't2'], rdomain: ['gmail.com'], device: ['mobile'], country: ['US'] });
  });

  it('counts tags as the tag registry names them: case-folded, non-ASCII stripped, once each', () => {
    const tagsOf = (tags: string[]) => eventValues({ accountId: 'a', domain: 'x.com', data: event('delivered', { tags }) }).tag;
    expect(tagsOf(['Promo', 'promo', 'Café'])).toEqual(['promo', 'caf']);
    expect(tagsOf(['ééé'])).toEqual([]);
  });

  it('counts a two-tag event under each tag, and an event without a value nowhere in that kind', () => {
    expect(combinations(['domain', 'tag', 'country'], values)).toEqual([
      ['example.com', 't1', 'US'],
      ['example.com', 't2', 'US'],
    ]);
    expect(combinations(['device'], { ...values, device: [] })).toEqual([]);
    expect(combinations([], values)).toEqual([[]]);
  });

  it('keeps 16 kinds and finds the smallest holding a question', () => {
    expect(KINDS).toHaveLength(16);
    expect(smallestKindWith(['country'])).toEqual(['country']);
    expect(smallestKindWith(['tag', 'domain'])).toEqual(['domain', 'tag']);
    expect(smallestKindWith(['device', 'country'])).toBeUndefined();
    expect(smallestKindWith([])).toEqual([]);
  });

  it('encodes values so a # in a tag stays a value', () => {
    expect(valuesOfKey(valuesKey(['a.com', 'x#y']))).toEqual(['a.com', 'x#y']);
    expect(valuesOfKey(valuesKey([]))).toEqual([]);
  });
});

describe('buckets and time', () => {
  const t = Date.UTC(2024, 1, 29, 13, 45);
  it('names hour, day and month buckets in UTC', () => {
    expect(bucketId(t, 'hour')).toBe('2024022913');
    expect(bucketId(t, 'day')).toBe('20240229');
    expect(bucketId(t, 'month')).toBe('202402');
    expect(bucketStart(t, 'month')).toBe(Date.UTC(2024, 1, 1));
  });

  it('lists the buckets overlapping a window', () => {
    expect(bucketsBetween(Date.UTC(2024, 0, 30, 12), Date.UTC(2024, 2, 1), 'month')).toEqual([Date.UTC(2024, 0, 1), Date.UTC(2024, 1, 1)]);
    expect(bucketsBetween(Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 31), 'day')).toHaveLength(30);
  });

  it('reads durations back from the end and writes RFC 2822', () => {
    const end = Date.UTC(2024, 2, 15);
    expect(parseDuration('30d', end)).toBe(end - 30 * 86_400_000);
    expect(parseDuration('2m', end)).toBe(Date.UTC(2024, 0, 15));
    expect(() => parseDuration('3w', end)).toThrow('Invalid duration');
    expect(rfc2822(Date.UTC(2024, 8, 24))).toBe('Tue, 24 Sep 2024 00:00:00 +0000');
    expect(timeRange({ start: 'Mon, 02 Sep 2024 00:00:00 -0000', end: 'Tue, 3 Sep 2024 00:00:00 +0200' })).toEqual({ from: Date.UTC(2024, 8, 2), to: Date.UTC(2024, 8, 2, 22) });
    expect(() => timeRange({ start: 'Tue, 03 Sep 2024 00:00:00 GMT', end: 'Mon, 02 Sep 2024 00:00:00 GMT' })).toThrow('start must be before end');
  });
});

describe('geolocation and providers', () => {
  it('places public IPv4 addresses and leaves others unknown', () => {
    expect(geolocate('8.8.8.8')).toEqual({ country: 'US' });
    expect(geolocate('::ffff:81.2.69.142')).toEqual({ country: 'GB' });
    expect(geolocate('127.0.0.1')).toEqual({ country: 'Unknown' });
    expect(geolocate('2001:db8::1')).toEqual({ country: 'Unknown' });
    expect(geolocate('999.1.1.1')).toEqual({ country: 'Unknown' });
  });

  it('names mailbox providers', () => {
    expect(providerOf('gmail.com')).toBe('Gmail');
    expect(providerOf('Yahoo.co.uk')).toBe('Yahoo');
    expect(providerOf('hotmail.fr')).toBe('Outlook');
    expect(providerOf('example.org')).toBe('Other');
  });
});
