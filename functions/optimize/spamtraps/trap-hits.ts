import type { CountSource } from '../../analytics/count-events';
import type { RecordedEvent } from '../../events/event-store';
import { mapLimit } from '../../platform/concurrency';
import { listedTrap, operatorTrapList } from './trap-list';
import { trapCount, type TrapType } from './trap-types';
import { isTypoDomain } from './typo-domains';
import { isUnknownUserBounce, rememberUnknownUser, unknownSince, unknownUserKey } from './recycled';

/** A send's last word: delivered, or failed for good after it was handed to a server (not a suppression). */
function sendOutcome(event: RecordedEvent): 'delivered' | 'failed' | undefined {
  const data = event.data;
  if (data.event === 'delivered') return 'delivered';
  if (data.event !== 'failed' || data['severity'] !== 'permanent') return undefined;
  const reason = typeof data['reason'] === 'string' ? data['reason'] : '';
  return reason.startsWith('suppress-') ? undefined : 'failed';
}

const recipientOf = (event: RecordedEvent) => (typeof event.data['recipient'] === 'string' ? event.data['recipient'] : '').toLowerCase();

/**
 * The trap hit each event is, if any, from the declared sources only (optimize contract 2.4): the
 * operator's list, typo-domain exposure, and suspected recycled traps. Each send counts at its last
 * event (delivered, or a permanent failure after the hand-over). Unknown-user bounces are
 * remembered here first, so a delivery later in the same batch is judged with them.
 */
async function trapHitsOf(events: readonly RecordedEvent[]): Promise<Array<TrapType | undefined>> {
  const outcomes = events.map(sendOutcome);
  if (!outcomes.some(Boolean)) return outcomes.map(() => undefined);
  for (const event of events) {
    if (isUnknownUserBounce(event.data)) await rememberUnknownUser(event.accountId, recipientOf(event), Math.round(event.data.timestamp * 1000));
  }
  const delivered = events.filter((_, i) => outcomes[i] === 'delivered');
  const bounced = await unknownSince(delivered.map((e) => ({ accountId: e.accountId, address: recipientOf(e) })));
  const list = operatorTrapList();
  return mapLimit([...events.keys()], 8, async (i): Promise<TrapType | undefined> => {
    const event = events[i]!;
    if (!outcomes[i]) return undefined;
    const recipient = recipientOf(event);
    const listed = list && listedTrap(list, recipient);
    if (listed) return listed;
    const domain = recipient.split('@')[1];
    if (domain && (await isTypoDomain(domain))) return 'typo';
    const since = bounced.get(unknownUserKey(event.accountId, recipient));
    if (outcomes[i] === 'delivered' && since !== undefined && since < event.data.timestamp * 1000) return 'recycled';
    return undefined;
  });
}

/** Each send's trap hit, as the analytics counter of its kind (`trap_typo`): counted with the send's own counts. */
export const trapHitCounts: CountSource = async (events) => (await trapHitsOf(events)).map((type) => type && trapCount(type));
