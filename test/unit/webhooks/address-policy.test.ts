import { forbiddenAddressCategory, PUBLIC_ONLY } from '../../../functions/webhooks/address-policy';
import { retryDelayMs, hopDelaySeconds, RETRY_SCHEDULE_SECONDS } from '../../../functions/webhooks/delivery-job';
import { webhookName, webhookNameOf } from '../../../functions/webhooks/names';
import type { EventData } from '../../../functions/events/event-store';

describe('forbiddenAddressCategory, public addresses only (AWS)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['169.254.170.23', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fd00:ec2::23', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['192.0.0.192', 'cloud metadata'],
    ['168.63.129.16', 'cloud metadata'],
    ['169.254.169.253', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    // IPv6 forms that carry an IPv4 address are judged by it.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:a9fe:a9fe', 'cloud metadata'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['::ffff:169.254.1.1', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['::10.0.0.1', 'private'],
    // Transition forms not taken apart: refused as a whole.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['64:ff9b:1::a00:1', 'reserved'],
    ['::ffff:0:a00:1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (address, category) => {
    expect(forbiddenAddressCategory(address)).toBe(category);
    expect(forbiddenAddressCategory(address, PUBLIC_ONLY)).toBe(category);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (address) => {
    expect(forbiddenAddressCategory(address)).toBeUndefined();
  });
});

describe('forbiddenAddressCategory, loopback allowed (local mode)', () => {
  const local = { allowLoopback: true };

  it.each(['127.0.0.1', '127.255.0.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '8.8.8.8', '2606:4700:4700::1111'])('%s may be reached', (address) => {
    expect(forbiddenAddressCategory(address, local)).toBeUndefined();
  });

  // Everything the AWS policy refuses apart from this machine's loopback, metadata first of all.
  it.each([
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['192.0.0.192', 'cloud metadata'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['fd12:3456::1', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.10', 'reserved'],
    // 127.0.0.1 behind a translator or relay is a loopback somewhere else, not here.
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['not-an-ip', 'invalid'],
  ])('%s is still refused as %s', (address, category) => {
    expect(forbiddenAddressCategory(address, local)).toBe(category);
  });
});

describe('webhook names', () => {
  it('accepts the alias unsubscribe and any case, refuses the rest', () => {
    expect(webhookName('unsubscribe')).toBe('unsubscribed');
    expect(webhookName('Delivered')).toBe('delivered');
    expect(webhookName('click')).toBeUndefined();
  });

  it('maps failed events by severity and has no webhook for rejected or stored', () => {
    const event = (fields: Partial<EventData>) => ({ id: 'x', timestamp: 1, ...fields }) as EventData;
    expect(webhookNameOf(event({ event: 'failed', severity: 'permanent' }))).toBe('permanent_fail');
    expect(webhookNameOf(event({ event: 'failed', severity: 'temporary' }))).toBe('temporary_fail');
    expect(webhookNameOf(event({ event: 'opened' }))).toBe('opened');
    expect(webhookNameOf(event({ event: 'rejected' }))).toBeUndefined();
    expect(webhookNameOf(event({ event: 'stored' }))).toBeUndefined();
  });
});

describe('retry schedule', () => {
  it("is Mailgun's 10m, 10m, 15m, 30m, 1h, 2h, 4h, scaled, and ends after seven retries", () => {
    expect(RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0)).toBe(485 * 60);
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, 1))).toEqual([600_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000]);
    expect(retryDelayMs(7, 1)).toBeUndefined();
    expect(retryDelayMs(6, 0.001)).toBe(14_400);
  });

  it('hops in SQS delays of at most 15 minutes', () => {
    const now = 1_000_000;
    expect(hopDelaySeconds(now + 4 * 3600_000, now)).toBe(900);
    expect(hopDelaySeconds(now + 600_000, now)).toBe(600);
    expect(hopDelaySeconds(now + 10, now)).toBe(1);
    expect(hopDelaySeconds(now - 10, now)).toBe(0);
  });
});
