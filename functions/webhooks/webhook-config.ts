import type { WebhookName } from './names';
import { TtlCache } from './ttl-cache';
import { readAccountHooks, readDomainHooks, type AccountWebhook, type DomainHooks } from './webhook-store';

/**
 * The configuration deliveries are made from, cached per container for WEBHOOK_CONFIG_CACHE_SECONDS.
 * Reads are eventually consistent: a change made a moment ago may apply a moment later, as with
 * Mailgun (whose documentation allows up to 10 minutes).
 */
const domainCache = new TtlCache<DomainHooks>();
const accountCache = new TtlCache<Record<string, AccountWebhook>>();

/**
 * The webhooks of a domain and its account, as a lookup of the URLs one event of a type goes to:
 * the domain's, then the account's not already listed.
 */
export async function configuredUrls(accountId: string, domain: string): Promise<(webhook: WebhookName) => string[]> {
  const [domainHooks, accountHooks] = await Promise.all([
    domainCache.get(`${accountId}\n${domain}`, () => readDomainHooks(accountId, domain, false)),
    accountCache.get(accountId, () => readAccountHooks(accountId, false)),
  ]);
  return (webhook) => {
    const urls = new Set(domainHooks[webhook] ?? []);
    for (const hook of Object.values(accountHooks)) if (hook.eventTypes.includes(webhook)) urls.add(hook.url);
    return [...urls];
  };
}

/** Drops this container's cached copies after a change made here (local mode shares one process). */
export function forgetConfiguration(accountId: string, domain?: string): void {
  if (domain !== undefined) domainCache.forget(`${accountId}\n${domain}`);
  else accountCache.forget(accountId);
}
