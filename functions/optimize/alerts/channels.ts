import { DeliveryError, postJson } from '../../webhooks/http-post';
import { webhookAddressPolicy } from '../../webhooks/url-policy';
import { alertText, alertTitle, type RaisedAlert, testNote } from './alert-message';
import { isReputationEvent } from './alert-event';
import { mailAlert } from './email-alert';
import type { AlertSettingItem } from './settings-store';
import { webhookBody, xSign } from './signature';
import { alertSigningKey } from './signing-key';
import { postMessage, SlackRefusal, SlackUnavailable } from './slack-api';
import { slackToken } from './slack-store';

/** How long an alert webhook POST may take, connection to last byte. */
export const ALERT_WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * What one attempt at one setting came to: delivered; failed for now (retried on the schedule,
 * with the Slack channels still owed); or failed for good (the setting is disabled at once).
 */
export type Attempt =
  | { outcome: 'delivered' }
  | { outcome: 'retry'; why: string; channelIds?: string[] }
  | { outcome: 'give-up'; why: string; refusedChannels?: Record<string, string> }
  | { outcome: 'partial'; refusedChannels: Record<string, string>; retryChannelIds?: string[]; why?: string };

/**
 * POSTs the signed alert to a URL: compact JSON, `X-Sign` over its bytes with the account's alerts
 * key as it is now, no redirects, the webhook address policy (SSRF) on the address connected to.
 * A 2xx delivers; anything else, or no answer, is retried. Answers the status, or what kept the
 * receiver from answering.
 */
export async function postAlert(accountId: string, url: string, alert: RaisedAlert): Promise<{ status?: number; why: string; refused?: boolean }> {
  const body = webhookBody(alert);
  const signature = xSign(await alertSigningKey(accountId), body);
  try {
    const reply = await postJson(url, body, { timeoutMs: ALERT_WEBHOOK_TIMEOUT_MS, policy: webhookAddressPolicy(), headers: { 'x-sign': signature } });
    return { status: reply.status, why: `HTTP ${reply.status}` };
  } catch (error) {
    if (error instanceof DeliveryError) return { why: error.message, refused: error.kind === 'forbidden-address' };
    throw error;
  }
}

async function viaWebhook(accountId: string, setting: AlertSettingItem, alert: RaisedAlert): Promise<Attempt> {
  const { status, why, refused } = await postAlert(accountId, setting.settings.url!, alert);
  if (status !== undefined && status >= 200 && status < 300) return { outcome: 'delivered' };
  // An address the policy refuses stays refused: retrying would only probe it again for hours.
  if (refused) return { outcome: 'give-up', why };
  return { outcome: 'retry', why };
}

/** Slack's message: the sentence in bold, when and which list (or over which window) beneath. */
export function slackBlocks(alert: RaisedAlert, test = false) {
  const where = alert.reputation && isReputationEvent(alert.event) ? `${alert.reputation.volume} messages in ${alert.reputation.windowHours} h` : `list ${alert.list}`;
  const context = `${test ? `${testNote(alert)} ` : ''}${alert.event} · observed ${alert.timestamp} · ${where}`;
  return [
    { type: 'section', text: { type: 'mrkdwn', text: `*${alertText(alert)}*` } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
  ];
}

/** Posts to each channel still owed; a channel Slack refuses for good is disabled, the others retried. */
async function viaSlack(accountId: string, setting: AlertSettingItem, alert: RaisedAlert, owed: string[] | undefined): Promise<Attempt> {
  const token = await slackToken(accountId);
  if (!token) return { outcome: 'give-up', why: 'Slack is no longer connected' };
  const disabled = setting.settings.disabled_channel_ids ?? {};
  const channels = (owed ?? setting.settings.channel_ids ?? []).filter((id) => !disabled[id] && (setting.settings.channel_ids ?? []).includes(id));
  const refused: Record<string, string> = {};
  const retry: string[] = [];
  let why = '';
  // Each channel at once: a slow answer for one holds back no other, within one POST's timeout.
  const results = await Promise.allSettled(channels.map((channelId) => postMessage(token, channelId, alertTitle(alert), slackBlocks(alert))));
  for (const [i, result] of results.entries()) {
    if (result.status === 'fulfilled') continue;
    const error: unknown = result.reason;
    if (error instanceof SlackRefusal && error.tokenRefused) return { outcome: 'give-up', why: `Slack refused the token: ${error.code}` };
    if (error instanceof SlackRefusal && error.channelRefused) refused[channels[i]!] = error.code;
    else if (error instanceof SlackRefusal || error instanceof SlackUnavailable) {
      retry.push(channels[i]!);
      why = error.message;
    } else throw error;
  }
  if (!Object.keys(refused).length) return retry.length ? { outcome: 'retry', why, channelIds: retry } : { outcome: 'delivered' };
  return { outcome: 'partial', refusedChannels: refused, retryChannelIds: retry.length ? retry : undefined, why };
}

async function viaEmail(accountId: string, setting: AlertSettingItem, alert: RaisedAlert): Promise<Attempt> {
  try {
    await mailAlert(accountId, alert, setting.settings.emails ?? []);
    return { outcome: 'delivered' };
  } catch (error) {
    // No domain to send from, or it may not send (disabled, unverified): an operator can fix it, so retried.
    if ((error as Error).name === 'NoAlertSender') return { outcome: 'retry', why: (error as Error).message };
    throw error;
  }
}

/** One attempt at delivering an alert to a setting, by its channel. */
export function deliverTo(accountId: string, setting: AlertSettingItem, alert: RaisedAlert, owedChannels?: string[]): Promise<Attempt> {
  switch (setting.channel) {
    case 'webhook':
      return viaWebhook(accountId, setting, alert);
    case 'slack':
      return viaSlack(accountId, setting, alert, owedChannels);
    case 'email':
      return viaEmail(accountId, setting, alert);
  }
}
