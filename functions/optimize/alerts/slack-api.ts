import { env } from '../../platform/env';

/**
 * Slack's Web API through fetch, with the workspace's bot token as a Bearer credential. Only the
 * methods alerts need: auth.test (a token's workspace), auth.revoke, chat.postMessage,
 * conversations.list and conversations.info. Arguments go form-encoded, which every Web API method
 * accepts (JSON bodies are for write methods only).
 */

/** How long one Slack call may take. */
const SLACK_TIMEOUT_MS = 10_000;

/** Slack's answer: `ok`, and either the method's fields or an `error` code (`channel_not_found`). */
export type SlackReply = { ok: true } & Record<string, unknown>;

/** Slack answered `ok: false`: its error code says why (`invalid_auth`, `not_in_channel`, ...). */
export class SlackRefusal extends Error {
  constructor(
    readonly method: string,
    readonly code: string,
  ) {
    super(`Slack ${method} failed: ${code}`);
    this.name = 'SlackRefusal';
  }

  /** The token no longer works (revoked, app removed, workspace gone): asking again cannot help. */
  get tokenRefused(): boolean {
    return ['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'no_permission', 'missing_scope'].includes(this.code);
  }

  /** The channel itself is the problem (gone, archived, the app not in it): that channel is done. */
  get channelRefused(): boolean {
    return ['channel_not_found', 'not_in_channel', 'is_archived', 'restricted_action', 'ekm_access_denied', 'team_access_not_granted'].includes(this.code);
  }
}

/** Slack could not be reached or did not answer like Slack (network, 5xx, rate limited). */
export class SlackUnavailable extends Error {
  constructor(
    readonly method: string,
    why: string,
  ) {
    super(`Slack ${method} did not answer: ${why}`);
    this.name = 'SlackUnavailable';
  }
}

async function callSlack(method: string, token: string, args: Record<string, string | number | boolean | undefined>): Promise<SlackReply> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) if (value !== undefined) body.set(name, String(value));
  let response: Response;
  try {
    response = await fetch(`${env().SLACK_API_URL.replace(/\/+$/, '')}/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(SLACK_TIMEOUT_MS),
    });
  } catch (error) {
    throw new SlackUnavailable(method, (error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message);
  }
  if (response.status === 429) throw new SlackUnavailable(method, 'rate limited');
  if (response.status !== 200) throw new SlackUnavailable(method, `HTTP ${response.status}`);
  let reply: { ok?: unknown; error?: unknown };
  try {
    reply = (await response.json()) as typeof reply;
  } catch {
    throw new SlackUnavailable(method, 'not JSON');
  }
  if (reply.ok === true) return reply as SlackReply;
  const code = typeof reply.error === 'string' ? reply.error : 'unknown_error';
  if (code === 'ratelimited' || code === 'internal_error' || code === 'fatal_error' || code === 'service_unavailable' || code === 'request_timeout') throw new SlackUnavailable(method, code);
  throw new SlackRefusal(method, code);
}

/** A channel as the alerts routes show it. */
export interface SlackChannel {
  id: string;
  name: string;
  is_archived: boolean;
}

const channelOf = (raw: Record<string, unknown>): SlackChannel => ({ id: String(raw['id']), name: String(raw['name'] ?? ''), is_archived: raw['is_archived'] === true });

/** One page of the workspace's channels the token can see, and Slack's cursor for the next (empty at the end). */
export async function listChannels(token: string, limit: number, cursor?: string): Promise<{ channels: SlackChannel[]; nextCursor: string }> {
  const reply = await callSlack('conversations.list', token, { types: 'public_channel,private_channel', exclude_archived: false, limit, cursor });
  const channels = Array.isArray(reply['channels']) ? (reply['channels'] as Array<Record<string, unknown>>).map(channelOf) : [];
  const metadata = reply['response_metadata'] as { next_cursor?: unknown } | undefined;
  return { channels, nextCursor: typeof metadata?.next_cursor === 'string' ? metadata.next_cursor : '' };
}

export async function channelInfo(token: string, channelId: string): Promise<SlackChannel> {
  const reply = await callSlack('conversations.info', token, { channel: channelId });
  return channelOf(reply['channel'] as Record<string, unknown>);
}

export async function postMessage(token: string, channelId: string, text: string, blocks?: unknown[]): Promise<void> {
  await callSlack('chat.postMessage', token, { channel: channelId, text, blocks: blocks ? JSON.stringify(blocks) : undefined });
}

/** The workspace a token belongs to (auth.test): checks a token before it is stored. */
export async function tokenTeam(token: string): Promise<{ teamId: string; teamName: string }> {
  const reply = await callSlack('auth.test', token, {});
  return { teamId: String(reply['team_id'] ?? ''), teamName: String(reply['team'] ?? '') };
}

export async function revokeToken(token: string): Promise<void> {
  await callSlack('auth.revoke', token, {});
}
