import type { InboundDelivery } from '../inbound/receipt';
import { stableId } from '../inbound/action-job';
import { newEvent, recordEvents } from '../events/event-store';
import { logger } from '../platform/logger';
import { postToList } from './inbound-post';
import { listsAmong } from './list-store';

/**
 * Received mail addressed to mailing lists: each list among the recipients gets the message
 * posted (subject to its access_level), and those recipients are not routed. A redelivered
 * receipt derives the same post and message ids from the stored object, so it starts each post
 * once. A refused post is recorded as a failed event of the list address, with the reason.
 */
export async function takeListRecipients(delivery: InboundDelivery): Promise<string[]> {
  const lists = await listsAmong(delivery.accountId, delivery.recipients);
  const objectKey = delivery.receipt.receipt.action.objectKey;
  for (const list of lists) {
    const postId = stableId('list-post', objectKey, list.address).slice(0, 24);
    const result = await postToList(delivery.accountId, list.address, delivery.mime, delivery.receipt.mail.source, 'inbound', {
      postId,
      messageId: `<${postId}@${delivery.domain.name}>`,
    });
    if ('refused' in result) {
      logger.info('inbound post to a mailing list refused', { list: list.address, reason: result.refused });
      await recordEvents(delivery.accountId, delivery.domain.name, [
        newEvent('failed', {
          severity: 'permanent',
          reason: 'generic',
          recipient: list.address,
          envelope: { sender: delivery.receipt.mail.source },
          message: { headers: { 'message-id': delivery.receipt.mail.messageId } },
          'delivery-status': { code: 550, message: result.refused, description: result.refused, 'attempt-no': 1 },
        }),
      ]);
    }
  }
  return lists.map((list) => list.address);
}
