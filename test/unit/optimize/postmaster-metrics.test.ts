import { addFeedbackLoopRates, collectDays, DAILY_METRICS, DELIVERY_ERROR_REASONS, feedbackLoopMetrics } from '../../../functions/optimize/postmaster/metrics';

const date = { year: 2026, month: 11, day: 24 };

test('the daily query asks for every figure contract 2.6 maps, in Google filter syntax', () => {
  const byName = Object.fromEntries(DAILY_METRICS.map((m) => [m.name, m]));
  expect(byName['spam_rate']).toEqual({ name: 'spam_rate', baseMetric: { standardMetric: 'SPAM_RATE' } });
  expect(byName['auth_dmarc']).toEqual({ name: 'auth_dmarc', baseMetric: { standardMetric: 'AUTH_SUCCESS_RATE' }, filter: 'auth_type = "dmarc"' });
  expect(byName['tls_inbound']!.filter).toBe('traffic_direction = "inbound"');
  expect(byName['delivery_error__reject__ip_in_rbls']!.filter).toBe('error_type = "reject" AND error_reason = "ip_in_rbls"');
  const reasons = Object.values(DELIVERY_ERROR_REASONS).flat().length;
  // spam, three auth types, inbound TLS, the overall error rate, one per error reason, feedback loop ids.
  expect(DAILY_METRICS).toHaveLength(6 + reasons + 1);
  // Feedback loop ids are the sender's header values: quoted and escaped, named by position.
  expect(feedbackLoopMetrics(['a"b\\c'])).toEqual([{ name: 'feedback_loop__0', baseMetric: { standardMetric: 'FEEDBACK_LOOP_SPAM_RATE' }, filter: 'feedback_loop_id = "a\\"b\\\\c"' }]);
});

test("Google's stats become days; values of any numeric kind count, missing ones stay absent", () => {
  const { days, feedbackLoopIds } = collectDays([
    { metric: 'spam_rate', value: { doubleValue: 0.001 }, date },
    { metric: 'auth_spf', value: { floatValue: 0.5 }, date },
    { metric: 'delivery_error__temp_fail__other', value: { doubleValue: 0.01 }, date },
    { metric: 'feedback_loop_ids', value: { stringList: { values: ['x', 'y'] } }, date },
    // No date (an OVERALL answer), an unknown metric, a value without a number: ignored.
    { metric: 'spam_rate', value: { doubleValue: 0.9 } },
    { metric: 'something_else', value: { doubleValue: 1 }, date },
    { metric: 'auth_dkim', value: {}, date },
  ]);
  expect([...days.values()]).toEqual([
    { day: '2026-11-24', spamRate: 0.001, spfRate: 0.5, deliveryErrors: [{ errorClass: 'TEMPORARY_ERROR', errorType: 'OTHER', ratio: 0.01 }], feedbackLoops: [] },
  ]);
  expect(feedbackLoopIds.get('2026-11-24')).toEqual(['x', 'y']);
  addFeedbackLoopRates(days, ['x', 'y'], [
    { metric: 'feedback_loop__1', value: { doubleValue: 0.2 }, date },
    { metric: 'feedback_loop__0', value: { doubleValue: 0.1 }, date: { year: 2026, month: 11, day: 23 } },
  ]);
  // A rate for a day the first query had nothing on has no day to join: it is left out, not invented into one.
  expect(days.get('2026-11-24')!.feedbackLoops).toEqual([{ id: 'y', spamRatio: 0.2 }]);
});
