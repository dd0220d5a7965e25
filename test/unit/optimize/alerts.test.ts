import { createHmac } from 'node:crypto';
import { alertText, eventData } from '../../../functions/optimize/alerts/alert-message';
import { ALERT_RETRY_SCHEDULE_SECONDS, alertRetryDelayMs, hopDelaySeconds } from '../../../functions/optimize/alerts/delivery-job';
import { transitionHash } from '../../../functions/optimize/alerts/raise';
import { webhookBody, xSign } from '../../../functions/optimize/alerts/signature';
import type { AlertEvent } from '../../../functions/optimize/alerts/alert-event';

const event: AlertEvent = { accountId: 'a1', event: 'ip_listed', subject: '49.0.2.1', list: 'b.barracudacentral.org', listName: 'Barracuda', firstSeen: '2026-11-26T08:00:00.000Z', timestamp: '2026-11-26T09:00:00.000Z' };

describe('alert wording and payload', () => {
  it('words transitions as Mailgun samples do, ip or domain by event', () => {
    expect(alertText(event)).toBe('IP 49.0.2.1 was blocklisted by Barracuda');
    expect(alertText({ ...event, event: 'ip_delisted' })).toBe('IP 49.0.2.1 was removed by Barracuda');
    expect(alertText({ ...event, event: 'domain_listed', subject: 'example.com' })).toBe('Domain example.com was blocklisted by Barracuda');
    expect(eventData({ ...event, event: 'domain_delisted', subject: 'example.com', id: 'x' })).toEqual({ id: 'x', timestamp: event.timestamp, log_level: 'warn', event: 'domain_delisted', domain: 'example.com', blocklist: 'Barracuda', message: 'Domain example.com was removed by Barracuda' });
  });

  it('sends compact JSON and signs exactly its bytes', () => {
    const body = webhookBody({ ...event, id: 'id-1' }, 1661445572_000);
    expect(body).toBe(JSON.stringify(JSON.parse(body)));
    expect(body).not.toMatch(/": |, /);
    expect(JSON.parse(body).signature).toEqual({ timestamp: 1661445572, token: expect.stringMatching(/^[0-9a-f]{50}$/) });
    expect(xSign('k'.repeat(32), body)).toBe(createHmac('sha256', 'k'.repeat(32)).update(Buffer.from(body)).digest('hex'));
  });
});

describe('alert retries and dedupe', () => {
  it('waits 1m, 5m, 15m, 30m, 1h, 2h, 4h (7h51m), then gives up; the scale shrinks every step', () => {
    expect(ALERT_RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0)).toBe(7 * 3600 + 51 * 60);
    expect([0, 1, 6, 7].map((attempt) => alertRetryDelayMs(attempt, 1))).toEqual([60_000, 300_000, 14_400_000, undefined]);
    expect(alertRetryDelayMs(6, 0.0001)).toBe(1440);
  });

  it('comes back in SQS hops of at most 15 minutes', () => {
    expect(hopDelaySeconds(10_000 + 3_600_000, 10_000)).toBe(900);
    expect(hopDelaySeconds(10_000 + 1_500, 10_000)).toBe(2);
    expect(hopDelaySeconds(5_000, 10_000)).toBe(0);
  });

  it('identifies a transition by account, event, subject, list and first sighting, not by when it was seen', () => {
    expect(transitionHash(event)).toBe(transitionHash({ ...event, timestamp: '2026-11-26T10:00:00.000Z' }));
    expect(transitionHash(event)).not.toBe(transitionHash({ ...event, firstSeen: '2026-11-27T08:00:00.000Z' }));
    expect(transitionHash(event)).toMatch(/^[0-9a-f]{64}$/);
  });
});
