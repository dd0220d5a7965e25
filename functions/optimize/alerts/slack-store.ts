import { deleteItem, getItem, putItem } from '../../data/store';
import { BadRequest } from '../../platform/errors';
import { decryptSecret, encryptSecret } from '../../platform/secrets';
import { alertKeys } from './settings-store';

/**
 * The account's Slack connection. The bot token is a credential to the customer's workspace: it is
 * stored sealed with the platform key (as DKIM private keys are), unsealed only to call Slack, and
 * never returned or logged once saved.
 */
interface SlackItem {
  teamId: string;
  teamName: string;
  scope: string;
  sealedToken: string;
  savedAt: string;
}

export interface SlackConnection {
  teamId: string;
  teamName: string;
  scope: string;
}

export async function slackConnection(accountId: string): Promise<SlackConnection | undefined> {
  const item = await getItem<SlackItem>(alertKeys.alertSlack(accountId), { consistent: true });
  return item && { teamId: item.teamId, teamName: item.teamName, scope: item.scope };
}

export async function saveSlackConnection(accountId: string, connection: SlackConnection, token: string): Promise<void> {
  const item: SlackItem = { ...connection, sealedToken: await encryptSecret(token), savedAt: new Date().toISOString() };
  await putItem(alertKeys.alertSlack(accountId), item);
}

/** The stored token, or undefined when Slack is not connected. */
export async function slackToken(accountId: string): Promise<string | undefined> {
  const item = await getItem<SlackItem>(alertKeys.alertSlack(accountId), { consistent: true });
  return item ? decryptSecret(item.sealedToken) : undefined;
}

/** The stored token, or a 400 saying Slack must be connected first (the routes that need it). */
export async function requireSlackToken(accountId: string): Promise<string> {
  const token = await slackToken(accountId);
  if (!token) throw new BadRequest('Slack is not connected: save a bot token with PUT /v1/alerts/settings/slack first');
  return token;
}

export async function deleteSlackConnection(accountId: string): Promise<void> {
  await deleteItem(alertKeys.alertSlack(accountId));
}
