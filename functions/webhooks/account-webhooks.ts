import { BadRequest, Conflict, NotFound } from '../platform/errors';
import { flag, schema } from '../platform/http/params';
import { objectId } from '../platform/ids';
import { MAX_URLS_PER_TYPE, webhookName, type WebhookName } from './names';
import { checkWebhookUrl } from './url-policy';
import { forgetConfiguration } from './webhook-config';
import { changeAccountHooks, readAccountHooks, type AccountWebhook } from './webhook-store';

/**
 * Account-level webhooks (`/v1/webhooks`, contract §4.3): one URL for several event types, for
 * every domain of the account in this region. A URL may serve a type once, and a type has at most
 * three URLs across the account's webhooks.
 */
export interface AccountWebhookInput {
  url: string;
  event_types: string[];
  description?: string;
}

function webhookJson(hook: AccountWebhook) {
  // RFC 3339 to the second, as Mailgun shows it; the stored instant keeps milliseconds for ordering.
  return { webhook_id: hook.id, description: hook.description, url: hook.url, event_types: hook.eventTypes, created_at: hook.createdAt.replace(/\.\d{3}Z$/, 'Z') };
}

function parseTypes(raw: readonly string[]): WebhookName[] {
  const seen = new Set<WebhookName>();
  for (const value of raw) {
    const name = webhookName(value);
    if (!name) throw new BadRequest(`event_type '${value}' is invalid`);
    if (seen.has(name)) throw new BadRequest(`duplicate event types: '${name}'`);
    seen.add(name);
  }
  return [...seen];
}

/** The limits, checked against every other webhook of the account. */
function checkAgainst(others: readonly AccountWebhook[], url: string, types: readonly WebhookName[]): void {
  for (const type of types) {
    const serving = others.filter((hook) => hook.eventTypes.includes(type));
    if (serving.some((hook) => hook.url === url)) throw new Conflict(`url ${url} already exists for event type ${type}`);
    if (serving.length >= MAX_URLS_PER_TYPE) throw new Conflict(`unable to add more than ${MAX_URLS_PER_TYPE} urls for event type ${type}`);
  }
}

/** `a,b,c` as ids; an empty item is refused with Mailgun's message. */
function parseIds(raw: string): string[] {
  const ids = raw.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) throw new BadRequest('Invalid parameter: webhook_ids malformed webhook_ids parameter: empty values not allowed');
  return ids;
}

/** The webhook of that id; own members only, so an id such as `__proto__` is simply not found. */
const hookById = (webhooks: Record<string, AccountWebhook>, id: string) => (Object.hasOwn(webhooks, id) ? webhooks[id] : undefined);

const byCreation = (a: AccountWebhook, b: AccountWebhook) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

export async function listAccountWebhooks(accountId: string, webhookIds?: string) {
  const all = Object.values(await readAccountHooks(accountId)).sort(byCreation);
  const wanted = webhookIds === undefined ? undefined : new Set(parseIds(webhookIds));
  return { webhooks: all.filter((hook) => !wanted || wanted.has(hook.id)).map(webhookJson) };
}

export async function createAccountWebhook(accountId: string, input: AccountWebhookInput) {
  const types = parseTypes(input.event_types);
  const url = await checkWebhookUrl(input.url);
  const now = new Date();
  const hook: AccountWebhook = { id: objectId(now.getTime()), url, description: input.description ?? '', eventTypes: types, createdAt: now.toISOString() };
  await changeAccountHooks(accountId, (webhooks) => {
    checkAgainst(Object.values(webhooks), url, types);
    return { webhooks: { ...webhooks, [hook.id]: hook }, result: undefined };
  });
  forgetConfiguration(accountId);
  return { webhook_id: hook.id };
}

export async function getAccountWebhook(accountId: string, id: string) {
  const hook = hookById(await readAccountHooks(accountId), id);
  if (!hook) throw new NotFound('webhook not found');
  return webhookJson(hook);
}

/** PUT replaces URL, types and description (a description left out becomes empty, as a full replace does). */
export async function replaceAccountWebhook(accountId: string, id: string, input: AccountWebhookInput) {
  const types = parseTypes(input.event_types);
  const url = await checkWebhookUrl(input.url);
  const hook = await changeAccountHooks(accountId, (webhooks) => {
    const current = hookById(webhooks, id);
    if (!current) throw new NotFound(`webhook_id not found: ${id}`);
    checkAgainst(Object.values(webhooks).filter((other) => other.id !== id), url, types);
    const next: AccountWebhook = { ...current, url, eventTypes: types, description: input.description ?? '' };
    return { webhooks: { ...webhooks, [id]: next }, result: next };
  });
  forgetConfiguration(accountId);
  return { message: 'Webhook has been updated', ...webhookJson(hook) };
}

export async function deleteAccountWebhook(accountId: string, id: string) {
  await changeAccountHooks(accountId, (webhooks) => {
    if (!hookById(webhooks, id)) throw new NotFound(`webhook_id not found: ${id}`);
    delete webhooks[id];
    return { webhooks, result: undefined };
  });
  forgetConfiguration(accountId);
  return { message: 'Webhook has been deleted', webhook_id: id };
}

const allFlag = schema(() => flag());

/** DELETE /v1/webhooks: `webhook_ids` wins over `all=true` when both are given (OAS). */
export async function deleteAccountWebhooks(accountId: string, webhookIds: string | undefined, all: string | undefined) {
  let everything = false;
  if (all !== undefined) {
    const parsed = allFlag().safeParse(all);
    if (!parsed.success) throw new BadRequest("Invalid parameter 'all': must be true or false");
    everything = parsed.data;
  }
  const ids = webhookIds !== undefined ? new Set(parseIds(webhookIds)) : undefined;
  if (!ids && !everything) throw new BadRequest("Missing parameter 'webhook_ids' (or all=true to delete every account webhook)");
  const deleted = await changeAccountHooks(accountId, (webhooks) => {
    const gone = Object.keys(webhooks).filter((id) => !ids || ids.has(id));
    if (!gone.length) throw new NotFound('no webhooks found for account');
    for (const id of gone) delete webhooks[id];
    return { webhooks, result: gone };
  });
  forgetConfiguration(accountId);
  return { message: 'Webhooks have been deleted', webhook_ids: deleted };
}
