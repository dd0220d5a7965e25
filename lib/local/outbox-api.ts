import type { IncomingMessage, ServerResponse } from 'node:http';
import { simpleParser } from 'mailparser';
import { onBehalfOf } from '../../functions/accounts/on-behalf-of';
import { authenticate } from '../../functions/authorizer/authenticate';
import { ApiError } from '../../functions/platform/errors';
import { roleAllows, type Access } from '../../functions/platform/access';
import type { Principal } from '../../functions/platform/principal';
import type { Outbox } from './outbox';

/**
 * Local mode's outbox as JSON, for the console's Outbox and for tests in any language (as
 * LocalStack's `/_aws/ses` is). Local mode only: nothing on AWS answers these paths. A request
 * signs in with an API key of the region as the API's do, and sees only its account's mail (or,
 * with X-Mailgun-On-Behalf-Of, the mail of the subaccount it may act for, as on every route).
 *
 *   GET    /_local/outbox                              newest first: `search`, `limit` (≤ 500, default 50), `before` / `since` (a seq)
 *   GET    /_local/outbox/{id}                         one message: its headers, text, HTML and attachments' names
 *   GET    /_local/outbox/{id}/raw                     the copy as the recipient's server stores it (message/rfc822)
 *   GET    /_local/outbox/{id}/attachments/{index}     one attachment's bytes
 *   DELETE /_local/outbox                              forgets the account's messages (and their files)
 */
export const OUTBOX_PATH = '/_local/outbox';

const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 50;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function whole(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

async function parsed(source: Buffer) {
  return simpleParser(source, { skipImageLinks: true, skipTextToHtml: true });
}

export interface OutboxApiOptions {
  outbox: Outbox;
  region: string;
  /** Runs `fn` with the region's configuration, as the handlers do (the key store lives there). */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** Answers the outbox's paths; returns false for any other path, which is the API's. */
export function outboxApi(options: OutboxApiOptions) {
  const { outbox } = options;
  const signIn = async (req: IncomingMessage, res: ServerResponse, access: Access): Promise<Principal | undefined> => {
    const header = req.headers.authorization;
    if (!header) return void json(res, 401, { message: 'Unauthorized' });
    const verdict = await options.run(() => authenticate(header, Date.now(), req.socket.remoteAddress));
    if (verdict.denied !== undefined) return void json(res, 401, { message: verdict.denied });
    if (!roleAllows(verdict.role, access)) return void json(res, 403, { message: `Forbidden: the key's role (${verdict.role}) cannot ${access === 'read' ? 'read' : 'change'} the outbox` });
    const target = req.headers['x-mailgun-on-behalf-of'];
    const subaccountId = typeof target === 'string' ? target.trim() : '';
    if (!subaccountId || subaccountId === verdict.accountId) return verdict;
    try {
      return { ...verdict, accountId: await options.run(() => onBehalfOf(verdict, subaccountId, { anyStatus: false })) };
    } catch (error) {
      if (error instanceof ApiError) return void json(res, error.status, { message: error.message });
      throw error;
    }
  };
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname !== OUTBOX_PATH && !url.pathname.startsWith(`${OUTBOX_PATH}/`)) return false;
    req.resume();
    const method = req.method ?? 'GET';
    const rest = url.pathname.slice(OUTBOX_PATH.length).split('/').filter(Boolean).map(decodeURIComponent);
    if (method === 'DELETE' && rest.length === 0) {
      const principal = await signIn(req, res, 'write');
      if (principal) json(res, 200, { message: 'Outbox cleared', count: outbox.clear(principal.accountId) });
      return true;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      json(res, 405, { message: 'Method Not Allowed' });
      return true;
    }
    const principal = await signIn(req, res, 'read');
    if (!principal) return true;
    if (rest.length === 0) {
      const limit = whole(url.searchParams.get('limit')) ?? DEFAULT_LIMIT;
      if (limit < 1 || limit > MAX_LIMIT) return (json(res, 400, { message: `limit must be between 1 and ${MAX_LIMIT}` }), true);
      const page = outbox.list({
        accountId: principal.accountId,
        search: url.searchParams.get('search') ?? undefined,
        limit,
        before: whole(url.searchParams.get('before')),
        since: whole(url.searchParams.get('since')),
      });
      json(res, 200, { region: options.region, ...page, messages: page.messages.map(({ accountId: _account, ...entry }) => entry) });
      return true;
    }
    const entry = outbox.entry(rest[0]!, principal.accountId);
    const source = entry ? await outbox.source(entry.id) : undefined;
    if (!entry || !source) return (json(res, 404, { message: 'No such message in the outbox' }), true);
    const { accountId: _account, ...shown } = entry;
    if (rest.length === 1) {
      const mail = await parsed(source);
      json(res, 200, {
        ...shown,
        headers: mail.headerLines.map(({ line }) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim(), line.slice(colon + 1).replace(/\r?\n[ \t]+/g, ' ').trim()];
        }),
        text: mail.text ?? null,
        html: mail.html || null,
        attachments: mail.attachments.map((a, index) => ({ index, filename: a.filename ?? null, contentType: a.contentType, size: a.size, related: a.related ?? false })),
      });
      return true;
    }
    if (rest.length === 2 && rest[1] === 'raw') {
      res.writeHead(200, { 'content-type': 'message/rfc822', 'content-disposition': `attachment; filename="${entry.id}.eml"`, 'cache-control': 'no-store' });
      res.end(source);
      return true;
    }
    const index = rest.length === 3 && rest[1] === 'attachments' ? whole(rest[2]!) : undefined;
    const attachment = index === undefined ? undefined : (await parsed(source)).attachments[index];
    if (!attachment) return (json(res, 404, { message: 'No such attachment' }), true);
    res.writeHead(200, { 'content-type': attachment.contentType || 'application/octet-stream', 'content-disposition': 'attachment', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    res.end(attachment.content);
    return true;
  };
}
