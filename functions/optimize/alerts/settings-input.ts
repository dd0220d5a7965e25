import { BadRequest } from '../../platform/errors';
import { isAddress } from '../../messages/recipients';
import { DeliveryError, getUrl } from '../../webhooks/http-post';
import { checkWebhookUrl, webhookAddressPolicy } from '../../webhooks/url-policy';
import type { AlertEventType } from './alert-event';
import { ALERT_WEBHOOK_TIMEOUT_MS } from './channels';
import { checkAlertRecipients, NoAlertSender } from './email-alert';
import type { AlertChannel, AlertSettingInput, ChannelSettings } from './settings-store';
import { requireSlackToken } from './slack-store';

/** Addresses one email setting may name. */
const MAX_ALERT_EMAILS = 20;
/** Slack channels one Slack setting may name. */
const MAX_SLACK_CHANNELS = 20;

const SLACK_ID = /^[A-Z0-9]{2,32}$/;

export function checkEmails(raw: string[] | undefined, field = 'settings.emails'): string[] {
  const emails = [...new Set((raw ?? []).map((email) => email.trim()).filter(Boolean))];
  if (!emails.length) throw new BadRequest(`Missing parameter '${field}': an email setting needs at least one address`);
  if (emails.length > MAX_ALERT_EMAILS) throw new BadRequest(`Invalid parameter '${field}': at most ${MAX_ALERT_EMAILS} addresses`);
  const bad = emails.find((email) => !isAddress(email));
  if (bad) throw new BadRequest(`Invalid parameter '${field}': ${bad} is not a valid email address`);
  return emails;
}

export function checkChannelIds(raw: string[] | undefined, field = 'settings.channel_ids'): string[] {
  const ids = [...new Set((raw ?? []).map((id) => id.trim()).filter(Boolean))];
  if (!ids.length) throw new BadRequest(`Missing parameter '${field}': a Slack setting needs at least one channel id`);
  if (ids.length > MAX_SLACK_CHANNELS) throw new BadRequest(`Invalid parameter '${field}': at most ${MAX_SLACK_CHANNELS} channels`);
  const bad = ids.find((id) => !SLACK_ID.test(id));
  if (bad) throw new BadRequest(`Invalid parameter '${field}': ${bad} is not a Slack channel id (C0123ABCD)`);
  return ids;
}

/**
 * Checks an alert webhook URL as Mailgun does when it is saved: a GET must answer 200. The URL
 * first passes the webhook address policy (no private, link-local or metadata addresses; loopback
 * only where allowed), and the GET goes through the same guarded connection as deliveries.
 */
async function checkAlertWebhookUrl(raw: string | undefined): Promise<string> {
  if (!raw?.trim()) throw new BadRequest("Missing parameter 'settings.url': a webhook setting needs a URL");
  const url = await checkWebhookUrl(raw);
  let status: number;
  try {
    status = (await getUrl(url, { timeoutMs: ALERT_WEBHOOK_TIMEOUT_MS, policy: webhookAddressPolicy() })).status;
  } catch (error) {
    if (error instanceof DeliveryError) throw new BadRequest(`${url} did not answer the GET check: ${error.message}`);
    throw error;
  }
  if (status !== 200) throw new BadRequest(`${url} answered the GET check with ${status}; an alert webhook URL must answer 200`);
  return url;
}

/** The addresses an alert email can reach from its sender, or a 400 saying why not. */
export async function reachable(accountId: string, emails: string[]): Promise<void> {
  try {
    await checkAlertRecipients(accountId, emails);
  } catch (error) {
    if (error instanceof NoAlertSender) throw new BadRequest(error.message);
    throw error;
  }
}

/** A setting's input checked for its channel: only that channel's fields are kept. */
export async function settingInput(accountId: string, eventType: AlertEventType, channel: AlertChannel, raw: { emails?: string[]; url?: string; channel_ids?: string[] }): Promise<AlertSettingInput> {
  let settings: ChannelSettings;
  if (channel === 'email') {
    const emails = checkEmails(raw.emails);
    await reachable(accountId, emails);
    settings = { emails };
  }
  else if (channel === 'slack') {
    const channelIds = checkChannelIds(raw.channel_ids);
    await requireSlackToken(accountId);
    settings = { channel_ids: channelIds, disabled_channel_ids: {} };
  } else settings = { url: await checkAlertWebhookUrl(raw.url) };
  return { eventType, channel, settings };
}
