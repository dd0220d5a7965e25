import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A channel of the stand-in's workspace. */
export interface StandInChannel {
  id: string;
  name: string;
  is_archived?: boolean;
}

/** A chat.postMessage the stand-in took. */
export interface SlackPost {
  channel: string;
  text: string;
  blocks?: unknown;
}

/**
 * Slack's Web API on loopback, for tests: the methods alerts call (auth.test, auth.revoke,
 * chat.postMessage, conversations.list, conversations.info), each answering with the shapes Slack
 * publishes (HTTP 200, `ok`, and `error` codes such as invalid_auth or channel_not_found). Only
 * the tokens it was given authenticate, as a Bearer credential; arguments come form-encoded.
 */
export class SlackStandIn {
  readonly posts: SlackPost[] = [];
  readonly calls: string[] = [];
  private server?: Server;
  private readonly tokens = new Set<string>();
  url = '';

  constructor(
    readonly team: { id: string; name: string },
    private readonly channels: StandInChannel[],
  ) {}

  /** A bot token of the workspace that Slack honours. */
  grant(token: string): void {
    this.tokens.add(token);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const method = (req.url ?? '/').replace(/^\/+/, '').split('?')[0]!;
        this.calls.push(method);
        const args = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        const token = /^Bearer (.+)$/.exec(req.headers['authorization'] ?? '')?.[1];
        const reply = !token ? { ok: false, error: 'not_authed' } : !this.tokens.has(token) ? { ok: false, error: 'invalid_auth' } : this.answer(method, token, args);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
    return this;
  }

  private channelJson(channel: StandInChannel) {
    return { id: channel.id, name: channel.name, is_channel: true, is_private: false, is_archived: channel.is_archived ?? false, is_member: true, created: 1449252889 };
  }

  private answer(method: string, token: string, args: Record<string, string>): Record<string, unknown> {
    switch (method) {
      case 'api/auth.test':
        return { ok: true, url: `https://${this.team.name.toLowerCase()}.slack.com/`, team: this.team.name, user: 'mailplane', team_id: this.team.id, user_id: 'U0STANDIN', bot_id: 'B0STANDIN' };
      case 'api/auth.revoke':
        this.tokens.delete(token);
        return { ok: true, revoked: true };
      case 'api/chat.postMessage': {
        const channel = this.channels.find((c) => c.id === args['channel']);
        if (!channel) return { ok: false, error: 'channel_not_found' };
        if (channel.is_archived) return { ok: false, error: 'is_archived' };
        if (!args['text'] && !args['blocks']) return { ok: false, error: 'no_text' };
        this.posts.push({ channel: channel.id, text: args['text'] ?? '', blocks: args['blocks'] ? JSON.parse(args['blocks']) : undefined });
        return { ok: true, channel: channel.id, ts: `${Math.floor(Date.now() / 1000)}.000${this.posts.length}`, message: { type: 'message', text: args['text'] ?? '', bot_id: 'B0STANDIN' } };
      }
      case 'api/conversations.list': {
        const limit = Number(args['limit'] ?? 100);
        const start = args['cursor'] ? Number(Buffer.from(args['cursor'], 'base64').toString('utf8').replace('next:', '')) : 0;
        const page = this.channels.slice(start, start + limit);
        const next = start + limit < this.channels.length ? Buffer.from(`next:${start + limit}`).toString('base64') : '';
        return { ok: true, channels: page.map((c) => this.channelJson(c)), response_metadata: { next_cursor: next } };
      }
      case 'api/conversations.info': {
        const channel = this.channels.find((c) => c.id === args['channel']);
        return channel ? { ok: true, channel: this.channelJson(channel) } : { ok: false, error: 'channel_not_found' };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
