import { platformEnvSchema } from '../../../functions/platform/env';
import { emfLine } from '../../../functions/platform/metrics';
import type { Figures } from '../../../functions/reputation/figures';
import { guardLevels } from '../../../functions/reputation/levels';
import { verdictOf } from '../../../functions/reputation/verdict';

const levels = guardLevels(platformEnvSchema.parse({ TABLE_NAME: 't' }));

function figures(delivered: number, hardBounces: number, complaints: number, softBounces = 0): Figures {
  const volume = delivered + hardBounces + softBounces;
  return { delivered, hardBounces, bounced: hardBounces + softBounces, complaints, volume, bounceRate: (hardBounces / volume) * 100, complaintRate: (complaints / volume) * 100, from: 0, to: 0 };
}

describe('the reputation guard judges an account', () => {
  test('by the documented defaults: 24 hours, 1000 messages, bounces 2% and 4%, complaints 0.05% and 0.1%', () => {
    expect(levels).toEqual({ windowHours: 24, minVolume: 1000, bounce: { warning: 2, pause: 4 }, complaint: { warning: 0.05, pause: 0.1 } });
  });

  test('not at all below the minimum volume, however it bounces', () => {
    expect(verdictOf(figures(500, 499, 0), levels)).toEqual({ level: 'ok', reason: '999 messages delivered or bounced over the last 24 hours, fewer than the 1000 from which rates count' });
  });

  test('hard bounces over delivered plus bounced: soft bounces count in the volume, not as bounces', () => {
    expect(verdictOf(figures(900, 30, 0, 70), levels)).toMatchObject({ level: 'warning' });
    expect(verdictOf(figures(900, 30, 0, 70), levels).reason).toBe('its bounce rate of 3% over the last 24 hours (30 hard bounces in 1000 messages delivered or bounced) is above the warning level of 2%');
  });

  test('strictly above a level: at it is not past it', () => {
    expect(verdictOf(figures(960, 40, 0), levels).level).toBe('warning');
    expect(verdictOf(figures(959, 41, 0), levels).level).toBe('pause');
    expect(verdictOf(figures(1000, 0, 1), levels).level).toBe('warning');
    expect(verdictOf(figures(980, 20, 0), levels).level).toBe('ok');
  });

  test('by the worse of its two measures', () => {
    const both = verdictOf(figures(975, 25, 5), levels);
    expect(both.level).toBe('pause');
    expect(both.reason).toBe('its complaint rate of 0.5% over the last 24 hours (5 complaints in 1000 messages delivered or bounced) is above the pause level of 0.1%');
  });

  test('levels whose warning is not below their pause are refused', () => {
    expect(() => guardLevels(platformEnvSchema.parse({ TABLE_NAME: 't', REPUTATION_BOUNCE_WARNING_PERCENT: '5' }))).toThrow(/REPUTATION_BOUNCE_WARNING_PERCENT \(5\) must be below REPUTATION_BOUNCE_PAUSE_PERCENT \(4\)/);
    expect(() => platformEnvSchema.parse({ TABLE_NAME: 't', REPUTATION_COMPLAINT_PAUSE_PERCENT: '0' })).toThrow();
  });
});

test('metrics are written in the Embedded Metric Format CloudWatch reads from Lambda logs', () => {
  const line = JSON.parse(emfLine('Mailplane/ReputationGuard', { PlatformRegion: 'eu' }, { PausedSubaccounts: { value: 2, unit: 'Count' }, BounceRate: { value: 6.5, unit: 'Percent' } }, 1_790_000_000_000));
  expect(line).toEqual({
    _aws: {
      Timestamp: 1_790_000_000_000,
      CloudWatchMetrics: [{ Namespace: 'Mailplane/ReputationGuard', Dimensions: [['PlatformRegion']], Metrics: [{ Name: 'PausedSubaccounts', Unit: 'Count' }, { Name: 'BounceRate', Unit: 'Percent' }] }],
    },
    PlatformRegion: 'eu',
    PausedSubaccounts: 2,
    BounceRate: 6.5,
  });
});
