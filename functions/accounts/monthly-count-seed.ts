import { accountsCovered } from './subaccount-list';
import { bucketStart } from '../analytics/buckets';
import { getCounters } from '../analytics/counter-store';
import { raiseMonthlyCount } from './monthly-limit';

/**
 * A limit set mid-month starts from what the month has already accepted: the accepted recipients
 * of the account (and of its subaccounts, whose sends count toward it) in the analytics counters,
 * which the event stream fills a moment after each send. The count only ever moves up to that, so
 * reservations made meanwhile are never lost.
 */
export async function seedMonthlyCount(accountId: string, now = Date.now()): Promise<number> {
  const accounts = await accountsCovered(accountId, true);
  const rows = (await Promise.all(accounts.map((id) => getCounters(id, [], 'month', [bucketStart(now, 'month')], [[]], now)))).flat();
  const accepted = rows.reduce((sum, row) => sum + (row.counts.accepted_outgoing ?? 0), 0);
  await raiseMonthlyCount(accountId, accepted, now);
  return accepted;
}
