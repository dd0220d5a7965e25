import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../platform/aws-clients';
import { chunksOf, mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { TABLE_KEYS } from './table';

/**
 * The single table's operations: each is one DynamoDB call (no Scan). Items carry their keys
 * (`pk`, `sk`, optional `gsi1pk`/`gsi1sk`) beside their attributes; readers get the attributes only.
 */
export interface Key {
  pk: string;
  sk: string;
}

/** An item's identity as one string, for maps and sets keyed by item (a newline is in no key). */
export const keyId = (key: Key): string => `${key.pk}\n${key.sk}`;

export interface IndexKey {
  gsi1pk: string;
  gsi1sk: string;
}

const KEY_ATTRIBUTES: readonly string[] = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, TABLE_KEYS.gsi1.partitionKey, TABLE_KEYS.gsi1.sortKey];

function withoutKeys<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!KEY_ATTRIBUTES.includes(name)) out[name] = value;
  return out as T;
}

const table = () => env().TABLE_NAME;

export async function getItem<T>(key: Key, options: { consistent?: boolean } = {}): Promise<T | undefined> {
  const out = await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: options.consistent }));
  return withoutKeys<T>(out.Item);
}

/** Whether a conditional write took place: false when its condition failed; any other error is thrown. */
async function unlessConditionFails(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Writes an item; with `ifAbsent`, only if its key is free, answering false when it is taken. */
export async function putItem<T extends object>(key: Key & Partial<IndexKey>, item: T, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
  return unlessConditionFails(
    documentClient().send(
      new PutCommand({
        TableName: table(),
        Item: { ...item, ...key },
        ...(options.ifAbsent ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
      }),
    ),
  );
}

/** BatchWriteItem's and BatchGetItem's limits on requests per call. */
const BATCH_WRITE_MAX = 25;
const BATCH_GET_MAX = 100;
/** Rounds of resending what DynamoDB left unprocessed (throttling) before giving up. */
const UNPROCESSED_ROUNDS = 8;

/**
 * Sends a batch's requests, then what DynamoDB left unprocessed (throttling) again with backoff;
 * if some still remain after UNPROCESSED_ROUNDS, it throws.
 */
async function untilProcessed<R>(what: string, requests: R[], send: (requests: R[]) => Promise<R[]>): Promise<void> {
  for (let round = 0; requests.length; round++) {
    if (round === UNPROCESSED_ROUNDS) throw new Error(`DynamoDB left ${requests.length} ${what} unprocessed after ${round} rounds`);
    if (round) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
    requests = await send(requests);
  }
}

/** A new item for putItems: its key and its attributes. */
export interface ItemWrite {
  key: Key & Partial<IndexKey>;
  item: object;
}

/**
 * Writes many new items, 25 a call (BatchWriteItem): one round trip where separate puts would
 * make one each. Unconditional, so only for items whose keys are fresh (events, with their own
 * ids).
 */
export async function putItems(items: ItemWrite[]): Promise<void> {
  await batchWrite(items.map(({ key, item }) => ({ PutRequest: { Item: { ...item, ...key } } })));
}

/** Deletes many items, 25 a call (BatchWriteItem); an absent key is no error. */
export async function deleteItems(keys: readonly Key[]): Promise<void> {
  await batchWrite(keys.map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })));
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

async function batchWrite(requests: WriteRequest[]): Promise<void> {
  await Promise.all(
    chunksOf(requests, BATCH_WRITE_MAX).map((chunk) =>
      untilProcessed('writes', chunk, async (pending) => {
        const out = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table()]: pending } }));
        return (out.UnprocessedItems?.[table()] ?? []) as typeof pending;
      }),
    ),
  );
}

/**
 * The items that exist among `keys`, 100 keys a call (BatchGetItem), in no particular order and
 * with their keys (`pk`, `sk`) so a caller can tell which is which; absent keys yield nothing.
 * A key given twice is read once (BatchGetItem refuses duplicates). With `consistent`, every read
 * is strongly consistent, as getItem's option.
 */
export async function getItems<T>(keys: readonly Key[], options: { concurrency?: number; consistent?: boolean } = {}): Promise<Array<T & Key>> {
  const found: Array<T & Key> = [];
  const distinct = [...new Map(keys.map((key) => [keyId(key), { pk: key.pk, sk: key.sk }])).values()];
  const consistent = options.consistent ? { ConsistentRead: true } : {};
  await mapLimit(chunksOf(distinct, BATCH_GET_MAX), options.concurrency ?? 4, (chunk) =>
    untilProcessed('reads', [...chunk], async (pending) => {
      const out = await documentClient().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending, ...consistent } } }));
      found.push(...((out.Responses?.[table()] ?? []) as Array<T & Key>));
      return (out.UnprocessedKeys?.[table()]?.Keys ?? []) as Key[];
    }),
  );
  return found;
}

/** An update expression setting the given attributes and removing the undefined ones. */
function updateExpression(changes: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  Object.entries(changes).forEach(([name, value], i) => {
    names[`#a${i}`] = name;
    if (value === undefined) removes.push(`#a${i}`);
    else {
      values[`:v${i}`] = value;
      sets.push(`#a${i} = :v${i}`);
    }
  });
  const expression = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim();
  return { expression, names, values };
}

/** A condition that each attribute has the given value (equality only). */
function equalities(expected: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const terms = Object.entries(expected).map(([name, value], i) => {
    names[`#e${i}`] = name;
    values[`:e${i}`] = value;
    return `#e${i} = :e${i}`;
  });
  return { condition: terms.join(' AND '), names, values };
}

/** Sets the given attributes (undefined ones are removed) on an existing item and returns it. */
export async function updateItem<T>(key: Key, changes: Record<string, unknown>): Promise<T> {
  const { expression, names, values } = updateExpression(changes);
  const out = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: expression,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      ReturnValues: 'ALL_NEW',
    }),
  );
  return withoutKeys<T>(out.Attributes)!;
}

/**
 * Changes an item only while its attributes still hold the `expected` values: a compare-and-set
 * that answers false when another writer got there first (or the item is gone).
 */
export async function updateItemIf(key: Key, expected: Record<string, unknown>, changes: Record<string, unknown>): Promise<boolean> {
  return conditionalUpdate(key, changes, equalities(expected));
}

/** An UpdateItem under a condition; false when the condition failed. */
async function conditionalUpdate(
  key: Key,
  changes: Record<string, unknown>,
  when: { condition: string; names: Record<string, string>; values: Record<string, unknown> },
): Promise<boolean> {
  const update = updateExpression(changes);
  const values = { ...update.values, ...when.values };
  return unlessConditionFails(
    documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: update.expression,
        ConditionExpression: when.condition,
        ExpressionAttributeNames: { ...update.names, ...when.names },
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      }),
    ),
  );
}

/**
 * Sets (undefined: removes) attributes of an existing item while the attribute at `path` (nested
 * names, `['trackingCertificate', 'jobId']`) holds `expected`, or is absent when `expected` is
 * undefined: a compare-and-set on a nested field. Answers false when the condition failed.
 */
export async function updateItemWhere(key: Key, path: readonly string[], expected: string | undefined, changes: Record<string, unknown>): Promise<boolean> {
  const names: Record<string, string> = Object.fromEntries(path.map((name, i) => [`#p${i}`, name]));
  const at = path.map((_, i) => `#p${i}`).join('.');
  const condition = expected === undefined ? `attribute_exists(pk) AND attribute_not_exists(${at})` : `${at} = :expected`;
  return conditionalUpdate(key, changes, { condition, names, values: expected === undefined ? {} : { ':expected': expected } });
}

/**
 * Sets one entry of a map attribute (`attribute.entry = value`) of an existing item, leaving its
 * other entries to their own writers; false when the item or its map is absent.
 */
export async function setMapEntry(key: Key, attribute: string, entry: string, value: unknown): Promise<boolean> {
  return unlessConditionFails(
    documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET #m.#e = :v',
        ConditionExpression: 'attribute_exists(#m)',
        ExpressionAttributeNames: { '#m': attribute, '#e': entry },
        ExpressionAttributeValues: { ':v': value },
      }),
    ),
  );
}

/**
 * Sets `claims` (attribute -> value) on an item, creating it if needed, only if none of them is
 * present yet, and `alsoSet` unconditionally; false when one is present. One conditional write.
 */
export async function setAbsentAttributes(key: Key, claims: Record<string, unknown>, alsoSet: Record<string, unknown> = {}): Promise<boolean> {
  // updateExpression names the attributes #a0.. in the order of `changes`: the claims come first.
  const changes = { ...claims, ...alsoSet };
  const condition = Object.keys(claims)
    .map((_, i) => `attribute_not_exists(#a${i})`)
    .join(' AND ');
  return conditionalUpdate(key, changes, { condition, names: {}, values: {} });
}

/** Deletes an item only while its attributes still hold the `expected` values. */
export async function deleteItemIf(key: Key, expected: Record<string, unknown>): Promise<boolean> {
  const when = equalities(expected);
  return unlessConditionFails(
    documentClient().send(
      new DeleteCommand({ TableName: table(), Key: key, ConditionExpression: when.condition, ExpressionAttributeNames: when.names, ExpressionAttributeValues: when.values }),
    ),
  );
}

export async function deleteItem(key: Key): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: key }));
}

/**
 * Every item of a partition whose sort key starts with `prefix`, in key order (all pages); with
 * `withSortKey`, each carries its sort key as `sk`.
 */
export async function queryAll<T>(
  partition: { pk: string } | { gsi1pk: string },
  prefix: string,
  options: { ascending?: boolean; withSortKey?: boolean } = {},
): Promise<T[]> {
  const onIndex = 'gsi1pk' in partition;
  const [pkName, skName] = onIndex ? [TABLE_KEYS.gsi1.partitionKey, TABLE_KEYS.gsi1.sortKey] : [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];
  // DynamoDB refuses an empty string in a key condition (dynalite does not): no prefix, no condition.
  const input: QueryCommandInput = {
    TableName: table(),
    ...(onIndex ? { IndexName: TABLE_KEYS.gsi1.name } : {}),
    KeyConditionExpression: prefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: { '#pk': pkName, ...(prefix ? { '#sk': skName } : {}) },
    ExpressionAttributeValues: { ':pk': onIndex ? partition.gsi1pk : partition.pk, ...(prefix ? { ':prefix': prefix } : {}) },
    ScanIndexForward: options.ascending ?? true,
  };
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    for (const item of out.Items ?? []) {
      const attributes = withoutKeys<Record<string, unknown>>(item)!;
      if (options.withSortKey) attributes['sk'] = item[skName];
      items.push(attributes as T);
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export interface PageQuery {
  /** Only sort keys starting with this (the entity's prefix, plus any filter prefix). */
  prefix: string;
  ascending: boolean;
  /** Exclusive bounds, as suffixes after `prefix` (pivots of Mailgun's page URLs). */
  after?: string;
  before?: string;
  limit: number;
  /** Items to skip without counting them (an expired ttl, say). */
  keep?: (item: Record<string, unknown>) => boolean;
  /** Return each item's sort key as `sk`, to resume from it later. */
  withSortKey?: boolean;
  /** Read gsi1 instead of the table: `pk` is then a gsi1pk, bounds and `sk` are gsi1sk values. */
  onIndex?: boolean;
}

// Sorts after any character a key can hold, to close a prefix range.
const HIGHEST = '\uffff';

/**
 * Up to `limit` items of a partition in sort-key order within `prefix`, strictly after `after` or
 * before `before`: a key range, so a page costs its own size, never the partition's.
 */
export async function queryPage<T>(pk: string, query: PageQuery): Promise<T[]> {
  const [pkName, skName] = query.onIndex ? [TABLE_KEYS.gsi1.partitionKey, TABLE_KEYS.gsi1.sortKey] : [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];
  // Never empty: DynamoDB refuses an empty string in a key condition.
  const low = query.after !== undefined ? `${query.prefix}${query.after}\u0000` : query.prefix || '\u0000';
  const high = query.before !== undefined ? `${query.prefix}${query.before}` : `${query.prefix}${HIGHEST}`;
  // An empty range (bounds crossed: a pivot outside a time range): DynamoDB would refuse BETWEEN.
  if (low > high) return [];
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        ...(query.onIndex ? { IndexName: TABLE_KEYS.gsi1.name } : {}),
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
        ExpressionAttributeNames: { '#pk': pkName, '#sk': skName },
        ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
        ScanIndexForward: query.ascending,
        Limit: query.limit + 1,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      // BETWEEN includes its ends; `before` is exclusive.
      if (query.before !== undefined && item[skName] === high) continue;
      if (query.keep && !query.keep(item)) continue;
      const attributes = withoutKeys<Record<string, unknown>>(item)!;
      if (query.withSortKey) attributes['sk'] = item[skName];
      items.push(attributes as T);
      if (items.length === query.limit) return items;
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Real DynamoDB deletes expired items late (and dynalite never): an item past its ttl is absent. */
export function isLive(item: { ttl?: number }, now = Date.now()): boolean {
  return item.ttl === undefined || item.ttl * 1000 > now;
}

/**
 * Adds `delta` to a numeric attribute, creating the item if needed. With `atMost` (a quota), only
 * if the result stays within it; with `ifExists`, only on an item that is there (a counter on an
 * entity that may have been deleted meanwhile). Answers the new value, or undefined when refused.
 */
export async function addToCounter(key: Key, attribute: string, delta: number, options: { atMost?: number; ifExists?: boolean } = {}): Promise<number | undefined> {
  const max = options.atMost === undefined ? undefined : options.atMost - delta;
  if (max !== undefined && max < 0) return undefined;
  const conditions = [...(max !== undefined ? ['(attribute_not_exists(#a) OR #a <= :max)'] : []), ...(options.ifExists ? ['attribute_exists(pk)'] : [])];
  try {
    const out = await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'ADD #a :d',
        ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':d': delta, ...(max !== undefined ? { ':max': max } : {}) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return out.Attributes?.[attribute] as number;
  } catch (error) {
    if (conditions.length && error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** What addToWindowSet did: the set's size after the addition, or, refused, when the full set expires. */
export type WindowSetResult = { size: number } | { fullUntil: number };

/** Rounds of addToWindowSet's update-or-replace before it gives up (each lost round is a concurrent writer winning). */
const WINDOW_SET_ROUNDS = 4;

/**
 * Adds `member` to a string set whose item lives `windowSeconds` past its latest addition (each
 * addition moves the item's `ttl` on); a set past its ttl counts as empty and starts afresh. With
 * `below`, only while the live set holds fewer members: a strict bound however many callers race,
 * since each addition is one conditional write. Adding a member already there counts it once.
 * dynalite has no transactions: an update of the live item, else a put replacing an absent or
 * expired one, else (another writer got there first) again.
 */
export async function addToWindowSet(
  key: Key,
  attribute: string,
  member: string,
  options: { windowSeconds: number; below?: number; now?: number },
): Promise<WindowSetResult> {
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const ttl = now + options.windowSeconds;
  const names = { '#s': attribute, '#ttl': TABLE_KEYS.ttl };
  const room = options.below === undefined ? '' : ' AND (attribute_not_exists(#s) OR size(#s) < :below)';
  for (let round = 0; round < WINDOW_SET_ROUNDS; round++) {
    try {
      const out = await documentClient().send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'ADD #s :m SET #ttl = :ttl',
          ConditionExpression: `attribute_exists(pk) AND #ttl > :now${room}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':m': new Set([member]), ':ttl': ttl, ':now': now, ...(options.below === undefined ? {} : { ':below': options.below }) },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { size: (out.Attributes?.[attribute] as Set<string> | undefined)?.size ?? 1 };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const current = (await documentClient().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;
    const expires = current?.[TABLE_KEYS.ttl] as number | undefined;
    if (current && expires !== undefined && expires > now) {
      // Live, so the update failed for want of room (or the item changed between the two calls).
      if (options.below !== undefined && ((current[attribute] as Set<string> | undefined)?.size ?? 0) >= options.below) return { fullUntil: expires };
      continue;
    }
    try {
      await documentClient().send(
        new PutCommand({
          TableName: table(),
          Item: { ...key, [attribute]: new Set([member]), [TABLE_KEYS.ttl]: ttl },
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
          ExpressionAttributeNames: { '#ttl': TABLE_KEYS.ttl },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return { size: 1 };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  throw new Error(`${key.pk} changed under every one of ${WINDOW_SET_ROUNDS} rounds`);
}

/** Takes `member` out of a string set (addToWindowSet's); nothing when the item or member is not there. */
export async function removeFromSet(key: Key, attribute: string, member: string): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'DELETE #s :m',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#s': attribute },
        ExpressionAttributeValues: { ':m': new Set([member]) },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Moves an attribute of an existing item towards `value`: up with 'max', down with 'min'. A no-op
 * (false) when the item is absent or already further; one conditional write, safe to repeat.
 */
export async function moveAttribute(key: Key, attribute: string, value: string | number, direction: 'max' | 'min', alsoSet: Record<string, unknown> = {}): Promise<boolean> {
  const extra = Object.entries(alsoSet);
  return unlessConditionFails(
    documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: `SET ${['#a = :v', ...extra.map((_, i) => `#x${i} = :x${i}`)].join(', ')}`,
        ConditionExpression: `attribute_exists(pk) AND #a ${direction === 'max' ? '<' : '>'} :v`,
        ExpressionAttributeNames: { '#a': attribute, ...Object.fromEntries(extra.map(([name], i) => [`#x${i}`, name])) },
        ExpressionAttributeValues: { ':v': value, ...Object.fromEntries(extra.map(([, v], i) => [`:x${i}`, v])) },
      }),
    ),
  );
}

/** Deletes an item, answering whether it was there (so a counter can follow exactly once). */
export async function deleteIfPresent(key: Key): Promise<boolean> {
  return unlessConditionFails(
    documentClient().send(new DeleteCommand({ TableName: table(), Key: key, ConditionExpression: 'attribute_exists(pk)' })),
  );
}
