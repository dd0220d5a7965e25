import { requireDomain } from '../domains/domain-store';
import { BadRequest, Conflict, NotFound } from '../platform/errors';
import { MAX_URLS_PER_TYPE, WEBHOOK_NAMES, webhookName, type WebhookName } from './names';
import { checkWebhookUrl, checkWebhookUrls } from './url-policy';
import { forgetConfiguration } from './webhook-config';
import { changeDomainHooks, readDomainHooks, type DomainHooks } from './webhook-store';

/**
 * Domain-level webhooks, v3 (one type, several URLs) and v4 (one URL, several types), over the
 * same stored map of type -> URLs. Replies follow contract §4.1 and §4.2.
 */

export function parseName(raw: string): WebhookName {
  const name = webhookName(raw);
  if (!name) throw new BadRequest(`Invalid webhook name '${raw}': must be one of ${WEBHOOK_NAMES.join(', ')}`);
  return name;
}

/** `{"clicked": {"urls": [...]}, ...}`: configured types only, in Mailgun's order. */
function hooksJson(hooks: DomainHooks): Record<string, { urls: string[] }> {
  const out: Record<string, { urls: string[] }> = {};
  for (const name of WEBHOOK_NAMES) if (hooks[name]?.length) out[name] = { urls: hooks[name] };
  return out;
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function checkCount(name: WebhookName, urls: readonly string[]): void {
  if (urls.length > MAX_URLS_PER_TYPE) throw new BadRequest(`unable to add more than ${MAX_URLS_PER_TYPE} urls for event type ${name}`);
}

export async function listHooks(accountId: string, domainName: string) {
  const domain = (await requireDomain(accountId, domainName)).name;
  return { webhooks: hooksJson(await readDomainHooks(accountId, domain)) };
}

export async function getHook(accountId: string, domainName: string, rawName: string) {
  const domain = (await requireDomain(accountId, domainName)).name;
  const urls = (await readDomainHooks(accountId, domain))[parseName(rawName)];
  if (!urls?.length) throw new NotFound('Webhook not found');
  return { webhook: { urls } };
}

/** Sets a type's URLs: `create` only where it has none yet, `update` only where it has some. */
async function setHookUrls(accountId: string, domainName: string, rawName: string, rawUrls: string[], mode: 'create' | 'update') {
  const domain = (await requireDomain(accountId, domainName)).name;
  const name = parseName(rawName);
  const urls = await checkWebhookUrls(distinct(rawUrls));
  checkCount(name, urls);
  await changeDomainHooks(accountId, domain, (hooks) => {
    const exists = Boolean(hooks[name]?.length);
    if (mode === 'create' && exists) throw new Conflict('Webhook already exists');
    if (mode === 'update' && !exists) throw new NotFound('Webhook not found');
    return { hooks: { ...hooks, [name]: urls }, result: undefined };
  });
  forgetConfiguration(accountId, domain);
  return { message: mode === 'create' ? 'Webhook has been created' : 'Webhook has been updated', webhook: { urls } };
}

export const createHook = (accountId: string, domainName: string, rawName: string, rawUrls: string[]) => setHookUrls(accountId, domainName, rawName, rawUrls, 'create');

export const updateHook = (accountId: string, domainName: string, rawName: string, rawUrls: string[]) => setHookUrls(accountId, domainName, rawName, rawUrls, 'update');

export async function deleteHook(accountId: string, domainName: string, rawName: string) {
  const domain = (await requireDomain(accountId, domainName)).name;
  const name = parseName(rawName);
  const removed = await changeDomainHooks(accountId, domain, (hooks) => {
    const urls = hooks[name];
    if (!urls?.length) throw new NotFound('Webhook not found');
    delete hooks[name];
    return { hooks, result: urls };
  });
  forgetConfiguration(accountId, domain);
  return { message: 'Webhook has been deleted', webhook: { urls: removed } };
}

function parseNames(raw: readonly string[]): WebhookName[] {
  return distinct(raw.map(parseName)) as WebhookName[];
}

/** v4 POST: adds one URL to several types; a type that has it already is refused. */
export async function addUrlToTypes(accountId: string, domainName: string, rawUrl: string, rawTypes: string[]) {
  const domain = (await requireDomain(accountId, domainName)).name;
  const types = parseNames(rawTypes);
  const url = await checkWebhookUrl(rawUrl);
  const hooks = await changeDomainHooks(accountId, domain, (current) => {
    for (const type of types) {
      const urls = current[type] ?? [];
      if (urls.includes(url)) throw new BadRequest(`Webhook for event type '${type}' with URL '${url}' already exists`);
      checkCount(type, [...urls, url]);
      current[type] = [...urls, url];
    }
    return { hooks: current, result: current };
  });
  forgetConfiguration(accountId, domain);
  return { webhooks: hooksJson(hooks) };
}

/** v4 PUT: the URL serves exactly these types from now on. */
export async function replaceUrlTypes(accountId: string, domainName: string, rawUrl: string, rawTypes: string[]) {
  const domain = (await requireDomain(accountId, domainName)).name;
  const types = parseNames(rawTypes);
  const url = await checkWebhookUrl(rawUrl);
  const hooks = await changeDomainHooks(accountId, domain, (current) => {
    if (!Object.values(current).some((urls) => urls?.includes(url))) throw new NotFound('Webhook not found');
    for (const name of WEBHOOK_NAMES) {
      const others = (current[name] ?? []).filter((u) => u !== url);
      current[name] = types.includes(name) ? [...others, url] : others;
      if (types.includes(name)) checkCount(name, current[name]!);
    }
    return { hooks: current, result: current };
  });
  forgetConfiguration(accountId, domain);
  return { webhooks: hooksJson(hooks) };
}

/** v4 DELETE: removes URLs from every type; at least one of them must be configured. */
export async function removeUrls(accountId: string, domainName: string, urls: string[]) {
  const domain = (await requireDomain(accountId, domainName)).name;
  const hooks = await changeDomainHooks(accountId, domain, (current) => {
    let found = false;
    for (const name of WEBHOOK_NAMES) {
      const kept = (current[name] ?? []).filter((u) => !urls.includes(u));
      if (kept.length !== (current[name] ?? []).length) found = true;
      current[name] = kept;
    }
    if (!found) throw new NotFound('Webhook not found');
    return { hooks: current, result: current };
  });
  forgetConfiguration(accountId, domain);
  return { webhooks: hooksJson(hooks) };
}
