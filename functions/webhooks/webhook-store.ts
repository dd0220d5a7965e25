import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { deleteItem, getItem, type Key } from '../data/store';
import { documentClient } from '../platform/aws-clients';
import { Conflict } from '../platform/errors';
import { env } from '../platform/env';
import type { WebhookName } from './names';
import { defineEntity } from '../data/key-registry';

const webhookKeys = defineEntity('webhooks', {
  domainWebhooks: { what: "a domain's v3/v4 webhooks, every type in one item", pk: 'ACCT#<account>', sk: 'WEBHOOKS#<domain>', key: (accountId: string, domain: string): Key => ({ pk: `ACCT#${accountId}`, sk: `WEBHOOKS#${domain}` }) },
  accountWebhooks: { what: "an account's /v1/webhooks, all in one item: the 3-URLs-per-type limit is checked in one write", pk: 'ACCT#<account>', sk: 'ACCOUNTWEBHOOKS', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'ACCOUNTWEBHOOKS' }) },
});

/**
 * Webhook configuration. Each level is one item, so the rules that span types and URLs (three URLs
 * per type, no URL twice on a type) are checked and written in a single conditional put, and a
 * delivery looks a level up with one GetItem:
 *
 *   domain level   pk = ACCT#<account>, sk = WEBHOOKS#<domain>   { hooks: { delivered: [urls] } }
 *   account level  pk = ACCT#<account>, sk = ACCOUNTWEBHOOKS     { webhooks: { <id>: AccountWebhook } }
 *
 * Writes are read-modify-write guarded by a `version` attribute; a concurrent change makes the
 * put fail its condition and the change is re-applied to the fresh item.
 */
export type DomainHooks = Partial<Record<WebhookName, string[]>>;

export interface AccountWebhook {
  id: string;
  url: string;
  description: string;
  eventTypes: WebhookName[];
  createdAt: string;
}

interface Versioned {
  version: number;
}

interface DomainHooksItem extends Versioned {
  accountId: string;
  domain: string;
  hooks: DomainHooks;
}

interface AccountHooksItem extends Versioned {
  accountId: string;
  webhooks: Record<string, AccountWebhook>;
}

const ATTEMPTS = 5;

/** Applies `change` to the item's current state and writes it if nobody wrote in between. */
async function modify<T extends object, R>(key: Key, empty: () => T, change: (current: T) => { next: T; result: R }): Promise<R> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const stored = await getItem<T & Versioned>(key, { consistent: true });
    const version = stored?.version ?? 0;
    const { next, result } = change(stored ?? empty());
    try {
      await documentClient().send(
        new PutCommand({
          TableName: env().TABLE_NAME,
          Item: { ...next, version: version + 1, ...key },
          ConditionExpression: stored ? '#version = :version' : 'attribute_not_exists(pk)',
          ExpressionAttributeNames: stored ? { '#version': 'version' } : undefined,
          ExpressionAttributeValues: stored ? { ':version': version } : undefined,
        }),
      );
      return result;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  throw new Conflict('The webhooks were changed concurrently; try again');
}

export async function readDomainHooks(accountId: string, domain: string, consistent = true): Promise<DomainHooks> {
  return (await getItem<DomainHooksItem>(webhookKeys.domainWebhooks(accountId, domain), { consistent }))?.hooks ?? {};
}

/** Changes a domain's webhooks; `change` returns the new map (types with no URL are dropped) and a result. */
export function changeDomainHooks<R>(accountId: string, domain: string, change: (hooks: DomainHooks) => { hooks: DomainHooks; result: R }): Promise<R> {
  return modify<DomainHooksItem, R>(
    webhookKeys.domainWebhooks(accountId, domain),
    () => ({ accountId, domain, hooks: {}, version: 0 }),
    (current) => {
      const { hooks, result } = change(structuredClone(current.hooks));
      const kept = Object.fromEntries(Object.entries(hooks).filter(([, urls]) => urls && urls.length)) as DomainHooks;
      return { next: { ...current, hooks: kept }, result };
    },
  );
}

/** Forgets a domain's webhooks (when the domain is deleted). */
export async function clearDomainHooks(accountId: string, domain: string): Promise<void> {
  await deleteItem(webhookKeys.domainWebhooks(accountId, domain));
}

export async function readAccountHooks(accountId: string, consistent = true): Promise<Record<string, AccountWebhook>> {
  return (await getItem<AccountHooksItem>(webhookKeys.accountWebhooks(accountId), { consistent }))?.webhooks ?? {};
}

export function changeAccountHooks<R>(
  accountId: string,
  change: (webhooks: Record<string, AccountWebhook>) => { webhooks: Record<string, AccountWebhook>; result: R },
): Promise<R> {
  return modify<AccountHooksItem, R>(
    webhookKeys.accountWebhooks(accountId),
    () => ({ accountId, webhooks: {}, version: 0 }),
    (current) => {
      const { webhooks, result } = change(structuredClone(current.webhooks));
      return { next: { ...current, webhooks }, result };
    },
  );
}
