import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { EVENT_ITEM_KIND, type EventItem, type RecordedEvent } from '../events/event-store';

/**
 * The newly recorded event a stream record carries, or undefined for anything else. The event
 * source mapping's filter already selects INSERTs of kind=event; checking again keeps a widened
 * filter (or the local stand-in, which has none) from feeding other items to the consumers.
 */
export function recordedEventOf(record: DynamoDBRecord): RecordedEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image) return undefined;
  const item = unmarshall(image as Record<string, AttributeValue>) as Partial<EventItem>;
  if (item.kind !== EVENT_ITEM_KIND || !item.accountId || !item.domain || !item.data) return undefined;
  return { accountId: item.accountId, domain: item.domain, data: item.data };
}
