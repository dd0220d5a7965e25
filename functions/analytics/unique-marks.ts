import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../data/table';
import { defineEntity } from '../data/key-registry';
import type { Key } from '../data/store';
import { documentClient } from '../platform/aws-clients';
import { env } from '../platform/env';

/**
 * Unique opens and clicks: the first open (or click) of a message by a recipient claims a mark; later
 * ones find it taken. Mailgun de-duplicates over a rolling seven days, so a mark lasts seven days from
 * the event that claimed it, and an expired mark is free again (dynalite never deletes by TTL, so the
 * condition checks the time itself).
 *
 * The mark records the event that claimed it, so the same event offered again (a retried stream
 * batch) is still recognised as the first: retries neither lose nor double a unique count.
 */
const UNIQUE_WINDOW_SECONDS = 7 * 86_400;

const firstMarkKey = defineEntity('unique marks', {
  firstMark: {
    what: 'the first open or click of a message by a recipient (conditional Put)',
    pk: 'ACCT#<account>#FIRST#<opened or clicked>#<message id*>#<recipient*>',
    sk: 'FIRST',
    key: (accountId: string, name: 'opened' | 'clicked', messageId: string, recipient: string): Key => ({ pk: `ACCT#${accountId}#FIRST#${name}#${messageId}#${recipient.toLowerCase()}`, sk: 'FIRST' }),
  },
}).firstMark;

/** True when this event is the first of its kind for the message and recipient within the window. */
export async function claimFirst(accountId: string, name: 'opened' | 'clicked', messageId: string, recipient: string, eventId: string, atSeconds: number): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({
        TableName: env().TABLE_NAME,
        Item: { ...firstMarkKey(accountId, name, messageId, recipient), eventId, [TABLE_KEYS.ttl]: Math.ceil(atSeconds) + UNIQUE_WINDOW_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :at OR eventId = :id',
        ExpressionAttributeNames: { '#ttl': TABLE_KEYS.ttl },
        ExpressionAttributeValues: { ':at': Math.floor(atSeconds), ':id': eventId },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
