import { request } from 'node:http';
import { connect } from 'node:net';
import { mapLimit } from '../../functions/platform/concurrency';
import { routes } from '../../functions/routes';
import type { RouteSpec } from '../../functions/platform/http/route';
import { routeKey } from '../../functions/platform/http/route';
import type { LocalPlatform } from '../../lib/local/platform';
import { ADMIN_KEY, call, eventsOf, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// Walks every row of functions/routes.ts with malformed bodies, parameters and path segments.
// Whatever arrives, the answer is never a 5xx, a refusal is a JSON `{"message": ...}`, and the
// host keeps answering. The case list is fixed (no random seeds) so a failure names its case.
//
// Inputs that take one and the same path through the shared request handling (a body the parser
// refuses before any route reads it, a segment too long to be a key part, ...) form a group: each
// route is sent one member of each group, in turn by its place in the table, so that every route
// meets every group and every member meets dozens of routes. What a route reads itself (its path
// values, its fields, its query) is still sent to every route in full.

let platform: LocalPlatform;
let host: { hostname: string; port: number };
let sandbox: string;
const CUSTOM = 'fuzz.example.com';
const HOOK_URL = 'http://127.0.0.1:9/fuzz-hook';
const fixtures = { keyId: '', accountWebhookId: '', storageKey: '', eventsToken: '', messageId: '' };

beforeAll(async () => {
  // Domain verification looks DNS up: a resolver that refuses at once keeps it from waiting on
  // timeouts. The authorizer's verdicts are cached, as API Gateway caches them: thousands of
  // requests with one key need not each look it up.
  platform = await startTestPlatform({ authorizerCacheSeconds: 300, env: { DNS_SERVERS: '127.0.0.1:9' } });
  const url = new URL(platform.us.url);
  host = { hostname: url.hostname, port: Number(url.port) };
  const mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  const form = (path: string, fields: Record<string, string>) =>
    call(`${platform.us.url}${path}`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });
  const made = await Promise.all([
    form('/v4/domains', { name: CUSTOM, dkim_key_size: '1024' }),
    form(`/v3/${sandbox}/templates`, { name: 'fuzz-template', template: 'Hi {{name}}', tag: 'v1' }),
    form(`/v3/${sandbox}/bounces`, { address: 'fuzz@example.com' }),
    form(`/v3/${sandbox}/complaints`, { address: 'fuzz@example.com' }),
    form(`/v3/${sandbox}/unsubscribes`, { address: 'fuzz@example.com', tag: 'fuzz-tag' }),
    form(`/v3/${sandbox}/whitelists`, { address: 'fuzz@example.com' }),
    form('/v1/keys', { role: 'basic', description: 'fuzz' }),
    form('/v1/webhooks', { url: HOOK_URL, event_types: 'delivered' }),
    form(`/v3/domains/${sandbox}/webhooks`, { id: 'delivered', url: HOOK_URL }),
    form(`/v3/domains/${sandbox}/credentials`, { login: 'fuzz', password: 'secret1-long-enough' }),
  ]);
  for (const res of made) expect(res.status).toBe(200);
  fixtures.keyId = (made[6]!.json as { id: string }).id;
  fixtures.accountWebhookId = (made[7]!.json as { webhook_id: string }).webhook_id;

  const sent = await form(`/v3/${sandbox}/messages`, { from: `fuzz@${sandbox}`, to: 'rcpt@example.com', subject: 'fuzz', text: 'hi', 'o:tag': 'fuzz-tag' });
  expect(sent.status).toBe(200);
  const accepted = await eventually(async () => (await eventsOf<{ storage?: { key: string } }>(platform.us.url, sandbox, String(sent.json.id)))[0]);
  fixtures.storageKey = accepted.storage!.key;
  fixtures.messageId = String(sent.json.id).slice(1, -1);
  const events = await call(`${platform.us.url}/v3/${sandbox}/events?limit=1`);
  fixtures.eventsToken = String((events.json.paging as { next: string }).next).split('/').at(-1)!;
  // The tag registry learns tags from the event stream.
  await eventually(async () => (await call(`${platform.us.url}/v3/${sandbox}/tags/fuzz-tag`)).status === 200);
});
afterAll(() => platform.close());

// ---- what is sent -------------------------------------------------------------------------------

interface Case {
  name: string;
  method: string;
  /** Exactly as it goes on the wire: already percent-encoded, never normalised. */
  path: string;
  body?: Buffer;
  contentType?: string;
  authorization?: string | null;
}

interface Outcome {
  status: number;
  contentType?: string;
  text: string;
}

function send(c: Case): Promise<Outcome> {
  const headers: Record<string, string> = {};
  const authorization = c.authorization === undefined ? `Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}` : c.authorization;
  if (authorization !== null) headers['authorization'] = authorization;
  if (c.contentType) headers['content-type'] = c.contentType;
  if (c.body) headers['content-length'] = String(c.body.length);
  return new Promise((resolve) => {
    const req = request({ ...host, method: c.method, path: c.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => resolve({ status: 0, text: String(error) }));
    });
    // A dropped connection is as bad as a 5xx: it is what a crashed host looks like.
    req.on('error', (error) => resolve({ status: 0, text: String(error) }));
    req.end(c.body);
  });
}

/**
 * A request line and headers written as is, for what http.request refuses to send; `cut` hangs up
 * after that many bytes of the body have gone, as a client that gives up mid-upload does.
 */
function sendRaw(head: string, body = '', cut?: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(host.port, host.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => resolve({ status: 0, text: String(error) }));
    socket.on('close', () => {
      const reply = Buffer.concat(chunks).toString('latin1');
      const head = reply.slice(0, reply.indexOf('\r\n\r\n'));
      let body = reply.slice(head.length + 4);
      if (/transfer-encoding: chunked/i.test(head)) body = dechunk(body);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), contentType: /content-type: ([^\r\n]+)/i.exec(head)?.[1], text: body });
    });
    const auth = `Authorization: Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}`;
    const length = body ? `\r\nContent-Length: ${Buffer.byteLength(body)}` : '';
    // Written, not ended: a client that half-closes may be hung up on before it is answered.
    socket.write(`${head}\r\nHost: ${host.hostname}\r\n${auth}${length}\r\nConnection: close\r\n\r\n`);
    if (cut === undefined) socket.write(body);
    else socket.write(body.slice(0, cut), () => socket.destroy());
  });
}

function dechunk(body: string): string {
  let out = '';
  for (let at = 0; at < body.length; ) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) break;
    out += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
  return out;
}

const json = (value: unknown) => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) });
const rawJson = (text: string) => ({ contentType: 'application/json', body: Buffer.from(text) });
const urlencoded = (text: string) => ({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from(text) });
const formOf = (fields: Record<string, string | string[]>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) params.append(name, v);
  return params.toString();
};

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
}

function multipartBody(parts: Part[], boundary = 'fuzzboundary'): Buffer {
  const chunks = parts.flatMap((p) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`),
    Buffer.from(p.value),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
}
const multipart = (parts: Part[]) => ({ contentType: 'multipart/form-data; boundary=fuzzboundary', body: multipartBody(parts) });

/** Multipart bodies cut off where a client that went away mid-upload leaves them. */
function truncatedMultiparts(): Array<[string, { contentType: string; body: Buffer }]> {
  const whole = multipartBody([
    { name: 'to', value: 'rcpt@example.com' },
    { name: 'attachment', value: 'a file the client never finished sending', filename: 'cut.txt' },
  ]).toString('latin1');
  const cut = (text: string) => ({ contentType: 'multipart/form-data; boundary=fuzzboundary', body: Buffer.from(text, 'latin1') });
  return [
    ['multipart cut inside a field', cut(whole.slice(0, whole.indexOf('rcpt@exa') + 8))],
    ['multipart cut inside a file part', cut(whole.slice(0, whole.indexOf('never fin') + 9))],
    ['multipart without its closing boundary', cut(whole.slice(0, whole.lastIndexOf('--fuzzboundary--')))],
    ['multipart without a boundary parameter', { contentType: 'multipart/form-data', body: Buffer.from(whole, 'latin1') }],
  ];
}

// ---- where it is sent ---------------------------------------------------------------------------

/** A value for each path parameter that names something that exists, so requests reach the logic. */
function realValue(route: RouteSpec, param: string): string {
  if (param === route.domainParam) return route.area === 'domains' ? CUSTOM : sandbox;
  const byParam: Record<string, string> = {
    id: route.area === 'keys' ? fixtures.keyId : fixtures.accountWebhookId,
    name: route.area === 'webhooks' ? 'delivered' : 'fuzz-template',
    tag: route.area === 'templates' ? 'v1' : 'fuzz-tag',
    new_tag: 'v2',
    spec: 'fuzz',
    address: 'fuzz@example.com',
    type: 'countries',
    storageKey: fixtures.storageKey,
    token: route.area === 'events' ? fixtures.eventsToken : 'forged',
  };
  return encodeURIComponent(byParam[param] ?? `unknown-${param}`);
}

const paramsOf = (route: RouteSpec) => [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!);

function pathFor(route: RouteSpec, override: Record<string, string> = {}): string {
  return route.path.replace(/\{(\w+)\+?\}/g, (_, name: string) => override[name] ?? realValue(route, name));
}

type Group<T> = ReadonlyArray<readonly [string, T]>;

/** The member of a group the `turn`-th route (or path parameter) is sent. */
const inTurn = <T>(group: Group<T>, turn: number) => group[turn % group.length]!;

/**
 * Path segments as they arrive on the wire; none may reach a store call it would break. The first
 * two groups each take one path through functions/platform/http/path-params.ts: too long to be a
 * key part (refused there, counted in bytes), or not valid percent-encoding (kept as sent).
 */
const HOSTILE_SEGMENTS: Array<Group<string>> = [
  [
    ['600 two-byte characters', '%C3%A9'.repeat(600)],
    ['1020 characters', 'a'.repeat(1020)],
  ],
  [
    ['invalid percent-encoding %zz', '%zz'],
    ['a lone %', '%'],
    ['truncated UTF-8', '%E2%82'],
  ],
  [['NUL', '%00']],
  [['an encoded slash', 'a%2Fb']],
  [['encoded dots', '%2E%2E']],
  [['a blank', '%20']],
  [['__proto__', '__proto__']],
  [['constructor', 'constructor']],
];

const token = (cursor: unknown) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

/** Page tokens come back from clients: forged ones must be refused or read within bounds, never trusted. */
const FORGED_TOKENS: Array<[string, string]> = [
  ['a token from before 1970', token({ from: -1e300, ascending: true, limit: 10, filters: {} })],
  ['a token reaching to the year 275760', token({ from: 0, to: 8.64e15, ascending: true, limit: 10, filters: {} })],
  ['a token without filters', token({ from: 0, ascending: false, limit: 10 })],
  ['a token with a limit of a billion', token({ from: 0, ascending: true, limit: 1e9, filters: {} })],
  ['a token with filters that are not strings', token({ from: 0, ascending: true, limit: 10, filters: { event: ['a'], __proto__: 1 } })],
  ['a token with a position of 2000 characters', token({ from: 0, ascending: true, limit: 10, filters: {}, position: 'a'.repeat(2000) })],
  ['a token that is JSON null', token(null)],
];

/**
 * A request each route accepts (sent as the query on GET, as the body otherwise), so that a
 * mutation of one of its fields reaches the logic behind validation.
 */
function validFields(route: RouteSpec): Record<string, string> | undefined {
  const day = 'Mon, 01 Jan 2024 00:00:00 +0000';
  const bodies: Record<string, Record<string, string>> = {
    'GET /v1/keys': { kind: 'user', domain_name: sandbox },
    'POST /v1/keys': { role: 'basic', description: 'fuzz', kind: 'user', user_id: 'u1', user_name: 'fuzz', email: 'fuzz@example.com', expiration: '3600' },
    'GET /v4/domains': { limit: '10', skip: '0', state: 'active', sort: 'name', search: 'fuzz', authority: CUSTOM },
    'POST /v4/domains': { name: 'fuzz-new.example.com', spam_action: 'tag', web_prefix: 'email', dkim_key_size: '1024', archive_to: HOOK_URL, mailfrom_host: 'bounce', pool_id: 'p', ips: '127.0.0.1', message_ttl: '3600', dkim_selector: 'sel' },
    'PUT /v4/domains/{name}': { spam_action: 'tag', web_scheme: 'https', web_prefix: 'track', require_tls: 'yes', archive_to: HOOK_URL, mailfrom_host: 'mail', message_ttl: '3600', smtp_password: 'secret1-long-enough' },
    'PUT /v3/domains/{name}/tracking/open': { active: 'yes', place_at_the_top: 'no' },
    'PUT /v3/domains/{name}/tracking/click': { active: 'htmlonly' },
    'PUT /v3/domains/{name}/tracking/unsubscribe': { active: 'yes', html_footer: '<p>bye</p>', text_footer: 'bye' },
    'GET /v3/domains/{name}/credentials': { skip: '0', limit: '10' },
    'POST /v3/domains/{name}/credentials': { login: 'fuzz-new', password: 'secret1-long-enough', system: 'no' },
    'PUT /v3/domains/{name}/credentials/{spec}': { password: 'secret2-long-enough' },
    'POST /v3/{domain}/messages': { from: `fuzz@${sandbox}`, to: 'rcpt@example.com', subject: 'fuzz', text: 'hi', 'o:tag': 'fuzz-tag', 'o:testmode': 'yes', 'v:k': 'v', 'h:X-Fuzz': '1', 'o:deliverytime': day },
    'POST /v3/domains/{domain}/messages/{storageKey}': { to: 'rcpt@example.com' },
    // Newest first from yesterday on, one item: a listing that finds the fixture stops at once.
    'GET /v3/{domain}/events': { begin: String(Math.floor(Date.now() / 1000) - 86_400), ascending: 'no', limit: '1', event: 'accepted', 'message-id': fixtures.messageId, recipient: 'rcpt@example.com' },
    'POST /v3/{domain}/templates': { name: 'fuzz-new', template: 'Hi {{x}}', tag: 'v1', description: 'd', comment: 'c', engine: 'handlebars' },
    'GET /v3/{domain}/templates': { limit: '10', page: 'next', p: 'fuzz' },
    'GET /v3/{domain}/templates/{name}': { active: 'yes' },
    'PUT /v3/{domain}/templates/{name}': { description: 'd' },
    'GET /v3/{domain}/templates/{name}/versions': { limit: '10', page: 'next', p: 'v' },
    'POST /v3/{domain}/templates/{name}/versions': { template: 'Hi {{x}}', tag: 'v3', comment: 'c', active: 'no', headers: '{"Subject":"s"}' },
    'PUT /v3/{domain}/templates/{name}/versions/{tag}': { template: 'Hi', comment: 'c', active: 'yes' },
    'PUT /v3/{domain}/templates/{name}/versions/{tag}/copy/{new_tag}': { comment: 'c' },
    'POST /v1/analytics/tags': { tag: 'fuzz' },
    'PUT /v1/analytics/tags': { tag: 'fuzz-tag', description: 'd' },
    'DELETE /v1/analytics/tags': { tag: 'absent-tag' },
    'GET /v3/{domain}/tags': { limit: '10', page: 'next', tag: 'fuzz', prefix: 'f' },
    'PUT /v3/{domain}/tags/{tag}': { description: 'd' },
    'GET /v3/{domain}/tag': { tag: 'fuzz-tag' },
    'PUT /v3/{domain}/tag': { tag: 'fuzz-tag', description: 'd' },
    'DELETE /v3/{domain}/tag': { tag: 'absent-tag' },
    'GET /v3/stats/total': { event: 'delivered', duration: '1d', resolution: 'day' },
    'GET /v3/stats/total/domains': { event: 'delivered', timestamp: day, limit: '10' },
    'GET /v3/stats/filter': { event: 'delivered', filter: `domain:${sandbox}`, group: 'total' },
    'GET /v3/{domain}/stats/total': { event: 'delivered', start: day, resolution: 'hour' },
    'GET /v3/{domain}/tag/stats': { tag: 'fuzz-tag', event: 'delivered' },
    'GET /v3/{domain}/tag/stats/aggregates': { tag: 'fuzz-tag', type: 'country' },
    'GET /v3/{domain}/tags/{tag}/stats': { event: 'delivered', country: 'us' },
    'POST /v3/domains/{domain}/webhooks': { id: 'clicked', url: HOOK_URL },
    'PUT /v3/domains/{domain}/webhooks/{name}': { url: HOOK_URL },
    'PUT /v3/domains/{domain}/webhooks/{name}/test': { url: HOOK_URL },
    'POST /v4/domains/{domain}/webhooks': { url: `${HOOK_URL}/v4`, event_types: 'opened' },
    'PUT /v4/domains/{domain}/webhooks': { url: `${HOOK_URL}/v4`, event_types: 'clicked' },
    'DELETE /v4/domains/{domain}/webhooks': { url: `${HOOK_URL}/absent` },
    'GET /v1/webhooks': { webhook_ids: fixtures.accountWebhookId },
    'POST /v1/webhooks': { url: `${HOOK_URL}/v1`, event_types: 'opened', description: 'd' },
    'PUT /v1/webhooks/{id}': { url: HOOK_URL, event_types: 'delivered', description: 'd' },
    'DELETE /v1/webhooks': { webhook_ids: 'absent' },
    // Free text an item stores: a 1 MB name once reached DynamoDB and came back a 500.
    'POST /v3/ip_pools': { name: 'fuzz-pool', description: 'd' },
    'POST /v3/lists': { address: `fuzz-list@${sandbox}`, name: 'n', description: 'd', access_level: 'readonly', reply_preference: 'list' },
  };
  for (const list of ['bounces', 'complaints', 'unsubscribes', 'whitelists']) {
    bodies[`GET /v3/{domain}/${list}`] = { limit: '10', page: 'next', address: 'a@example.com', term: 'f' };
    bodies[`POST /v3/{domain}/${list}`] = { address: 'fuzz2@example.com', ...(list === 'bounces' ? { code: '550', error: 'e' } : {}), ...(list === 'unsubscribes' ? { tag: 'fuzz-tag' } : {}) };
  }
  bodies['DELETE /v3/{domain}/unsubscribes/{address}'] = { tag: 'fuzz-tag' };
  return bodies[routeKey(route)];
}

/** JSON documents for the routes whose input is a JSON object, not form fields. */
function validJson(route: RouteSpec): Record<string, unknown> | undefined {
  const range = { start: 'Mon, 01 Jan 2024 00:00:00 +0000', end: 'Tue, 02 Jan 2024 00:00:00 +0000' };
  const documents: Record<string, Record<string, unknown>> = {
    'POST /v1/analytics/tags': { pagination: { sort: 'tag:asc', skip: 0, limit: 10, include_total: true }, tag: 'fuzz', include_metrics: false },
    'POST /v1/analytics/logs': { ...range, events: ['delivered'], pagination: { sort: 'timestamp:asc', limit: 10 }, filter: { AND: [{ attribute: 'domain', comparator: '=', values: [{ label: sandbox, value: sandbox }] }] } },
    'POST /v1/analytics/metrics': { ...range, resolution: 'day', metrics: ['delivered_count'], dimensions: ['time'], pagination: { sort: 'time:asc', skip: 0, limit: 10 }, include_aggregates: true },
    'POST /v1/analytics/usage/metrics': { ...range, resolution: 'day', metrics: ['email_validation_count'], dimensions: ['time'] },
    'POST /v3/{domain}/bounces': { address: 'fuzz3@example.com', code: '550' },
  };
  return documents[routeKey(route)];
}

/** Multipart requests for the routes that take files. */
function validParts(route: RouteSpec): Part[] | undefined {
  const key = routeKey(route);
  if (key === 'POST /v3/{domain}/messages') return [{ name: 'from', value: `fuzz@${sandbox}` }, { name: 'to', value: 'rcpt@example.com' }, { name: 'subject', value: 'fuzz' }, { name: 'text', value: 'hi' }, { name: 'attachment', value: 'bytes', filename: 'a.txt' }];
  if (key === 'POST /v3/{domain}/messages.mime') return [{ name: 'to', value: 'rcpt@example.com' }, { name: 'message', value: `From: fuzz@${sandbox}\r\nTo: rcpt@example.com\r\nSubject: fuzz\r\n\r\nhi\r\n`, filename: 'message.mime' }];
  if (key.endsWith('/import')) return [{ name: 'file', value: 'address,code\nfuzz4@example.com,550\n', filename: 'list.csv' }];
  return undefined;
}

const MEGABYTE = 'x'.repeat(1024 * 1024);

type Mutation = [string, { query?: string; contentType?: string; body?: Buffer }];

/**
 * Every field of a valid request replaced, one at a time, by what a string field must survive. A
 * field sent twice arrives as the same two-item list whether it came repeated in a form (with
 * invalid percent-encoding or not) or as a JSON array, so the JSON array goes only to the routes
 * that may read the JSON document itself (every method but GET).
 */
function fieldMutations(route: RouteSpec, fields: Record<string, string>): Mutation[] {
  const get = route.method === 'GET';
  // Query strings are bounded by the header size (16 KB): GET carries long values, not 1 MB ones.
  const asForm = (changed: Record<string, string | string[]>) => (get ? { query: formOf({ ...fields, ...changed }) } : urlencoded(formOf({ ...fields, ...changed })));
  const asJson = (name: string, value: unknown) => ({ ...json({ ...fields, [name]: value }), ...(get ? { query: '' } : {}) });
  return Object.keys(fields).flatMap((name): Mutation[] => [
    [`${name} = ${get ? '8000 characters' : '1 MB'}`, asForm({ [name]: get ? 'x'.repeat(8000) : MEGABYTE })],
    [`${name} = 1100 characters`, asForm({ [name]: 'a'.repeat(1100) })],
    [`${name} = NUL`, asForm({ [name]: `a\u0000b` })],
    [`${name} repeated`, asForm({ [name]: [fields[name]!, 'second'] })],
    ...(get ? [] : [[`${name} as a JSON array`, asJson(name, [fields[name], 'second'])] satisfies Mutation]),
    [`${name} as a JSON object`, asJson(name, { $gt: '' })],
    [`${name} as a huge JSON number`, asJson(name, 1e308)],
  ]);
}

/**
 * Paging values each route bounds or parses in its own way (a negative, zero, one beyond the safe
 * integers), and a group that is no integer at all, which functions/platform/http/params.ts's
 * integer() refuses for every route that uses it.
 */
const LIMITS = ['-1', '0', '99999999999999999999'];
const NOT_INTEGERS: Group<string> = [
  ['1.5', '1.5'],
  ['abc', 'abc'],
  ['1e309', '1e309'],
];

type Body = { contentType: string; body: Buffer };

/** Bodies functions/platform/http/body.ts refuses before any route reads them. */
const UNPARSABLE_BODIES: Group<Body> = [['invalid JSON', rawJson('{"unterminated')], ...truncatedMultiparts()];

/** Bodies of a type no route reads: they add no fields. */
const UNREAD_BODIES: Group<Body> = [
  ['text/plain', { contentType: 'text/plain', body: Buffer.from('hello') }],
  ['application/xml', { contentType: 'application/xml', body: Buffer.from('<a/>') }],
];

/**
 * JSON documents that are no object: they add no fields, and reach the routes that read the
 * document itself as they are. No GET reads one, so a GET is sent one of them in turn.
 */
const JSON_NOT_OBJECTS: Group<Body> = [
  ['a JSON array for the object', json(['a', 'b'])],
  ['a JSON string for the object', json('just a string')],
  ['JSON null', rawJson('null')],
  ['a JSON number beyond double', rawJson('1e309')],
  ['deeply nested JSON', rawJson(`${'['.repeat(5000)}${']'.repeat(5000)}`)],
];

/** Credentials that are not; the authorizer reads them alike for every route. */
const NOT_CREDENTIALS: Group<string | null> = [
  ['no credentials', null],
  ['a Basic header that is not base64', 'Basic %%%'],
  ['Basic without a colon', `Basic ${Buffer.from('nocolon').toString('base64')}`],
  ['a Bearer token', 'Bearer x'],
];

function casesFor(route: RouteSpec): Case[] {
  const label = routeKey(route);
  const cases: Case[] = [];
  const add = (name: string, init: { path?: string; query?: string; contentType?: string; body?: Buffer; authorization?: string | null }) => {
    const path = init.path ?? pathFor(route);
    cases.push({ name: `${label}: ${name}`, method: route.method, path: init.query ? `${path}?${init.query}` : path, body: init.body, contentType: init.contentType, authorization: init.authorization });
  };
  const fields = validFields(route);
  const document = validJson(route);
  const parts = validParts(route);
  // What a valid request sends, so a hostile path segment is the only thing wrong.
  const valid = fields ? (route.method === 'GET' ? { query: formOf(fields) } : urlencoded(formOf(fields))) : document ? json(document) : parts ? multipart(parts) : {};

  const turn = routes.indexOf(route);

  paramsOf(route).forEach((param, at) => {
    // Tokens skip the length check and are read by their routes' own decoders: every member goes.
    const segments = param === 'token' ? [...HOSTILE_SEGMENTS.flat(), ...FORGED_TOKENS] : HOSTILE_SEGMENTS.map((group) => inTurn(group, turn + at));
    for (const [what, segment] of segments) add(`{${param}} = ${what}`, { ...valid, path: pathFor(route, { [param]: segment }) });
  });
  add('a valid request', valid);

  // Bodies no route can read (beside a GET's valid query, which the body merges into).
  const query = 'query' in valid ? { query: valid.query } : {};
  const notObjects = route.method === 'GET' ? [inTurn(JSON_NOT_OBJECTS, turn)] : JSON_NOT_OBJECTS;
  for (const [what, body] of [inTurn(UNPARSABLE_BODIES, turn), inTurn(UNREAD_BODIES, turn), ...notObjects]) add(what, { ...query, ...body });
  add('urlencoded with invalid percent-encoding and NUL', { ...query, ...urlencoded('%zz=%&a=%00&%=1&name=%E2%82') });

  // Query strings.
  // Lists are read with GET (the JSON ones take their paging in the document, below).
  if (route.method === 'GET') for (const limit of [...LIMITS, inTurn(NOT_INTEGERS, turn)[1]]) add(`limit=${limit}`, { query: `limit=${limit}&skip=${limit}` });
  add('repeated query keys', { query: 'limit=1&limit=2&page=next&page=last&p=a&p=b&address=a&address=b&tag=a&tag=b' });
  add('invalid percent-encoding in the query', { query: '%zz=%&limit=%00&page=%E2%82' });
  add('pivots of 1100 characters', { query: `page=next&address=${'a'.repeat(1100)}&p=${'a'.repeat(1100)}&tag=${'a'.repeat(1100)}&pivot=${'a'.repeat(1100)}` });

  // Each field of a valid request, mutated.
  if (fields) for (const [what, init] of fieldMutations(route, fields)) add(what, init);
  if (document) {
    for (const name of Object.keys(document)) {
      add(`JSON ${name} as an array`, json({ ...document, [name]: ['a', 'b'] }));
      add(`JSON ${name} as a string of 1100 characters`, json({ ...document, [name]: 'a'.repeat(1100) }));
      add(`JSON ${name} as a number`, json({ ...document, [name]: -1e308 }));
    }
    if (document['pagination']) {
      // Written as JSON text: 99999999999999999999 is not a number JavaScript can hold exactly.
      for (const limit of ['-1', '1e308', '99999999999999999999', '0.5', '"10"', 'null']) {
        const text = JSON.stringify({ ...document, pagination: { ...(document['pagination'] as object), limit: 'LIMIT', skip: 'LIMIT' } }).replaceAll('"LIMIT"', limit);
        add(`JSON pagination limit and skip ${limit}`, rawJson(text));
      }
      add('JSON pagination token of 2000 characters', json({ ...document, pagination: { ...(document['pagination'] as object), token: 'a'.repeat(2000) } }));
    }
  }
  if (parts) {
    add('multipart with every field repeated', multipart([...parts, ...parts]));
    add('multipart with a 1 MB field', multipart([...parts, ...parts.filter((p) => !p.filename).map((p) => ({ ...p, value: MEGABYTE }))]));
    add('multipart with an empty file', multipart(parts.map((p) => (p.filename ? { ...p, value: '' } : p))));
  }

  const [what, authorization] = inTurn(NOT_CREDENTIALS, turn);
  add(what, { ...valid, authorization });
  return cases;
}

function problem(c: Case, outcome: Outcome): string | undefined {
  if (outcome.status === 0 || outcome.status >= 500) return `${c.name} -> ${outcome.status} ${outcome.text.slice(0, 200)}`;
  if (outcome.status >= 400) {
    let message: unknown;
    try {
      message = (JSON.parse(outcome.text) as { message?: unknown }).message;
    } catch {
      message = undefined;
    }
    if (typeof message !== 'string' || !outcome.contentType?.startsWith('application/json')) return `${c.name} -> ${outcome.status} without a JSON message: ${outcome.text.slice(0, 200)}`;
  }
  return undefined;
}

it('answers every malformed request to every route with a 4xx JSON message, never a 5xx, and keeps answering', async () => {
  const all = routes.flatMap(casesFor);
  // Reads first, while the event partitions they walk are small; deletions last, so that the
  // cases before them still find the fixtures they name.
  const phase = (c: Case) => (c.method === 'GET' ? 0 : c.method === 'DELETE' ? 2 : 1);
  const sorted = [0, 1, 2].flatMap((p) => all.filter((c) => phase(c) === p));
  const outcomes = await mapLimit(sorted, 8, send);
  const problems = sorted.map((c, i) => problem(c, outcomes[i]!)).filter((p): p is string => p !== undefined);
  expect(problems).toEqual([]);
  expect((await call(`${platform.us.url}/v4/domains`)).status).toBe(200);
});

it('turns away names too long to be keys before any store call: an unknown domain, or a parameter too long', async () => {
  const at = (path: string) => call(`${platform.us.url}${path}`);
  expect((await at(`/v4/domains/${'a'.repeat(1020)}`)).json).toEqual({ message: 'Domain not found' });
  expect((await at(`/v3/${'a'.repeat(254)}/bounces`)).status).toBe(404);
  const template = await at(`/v3/${sandbox}/templates/${'a'.repeat(1020)}`);
  expect([template.status, template.json]).toEqual([400, { message: "Invalid parameter 'name': too long (at most 1000 bytes)" }]);
  const address = await at(`/v3/${sandbox}/bounces/${'%C3%A9'.repeat(501)}`);
  expect([address.status, address.json]).toEqual([400, { message: "Invalid parameter 'address': too long (at most 1000 bytes)" }]);
  const pivot = await at(`/v3/${sandbox}/bounces?page=next&address=${'a'.repeat(1001)}`);
  expect([pivot.status, pivot.json]).toEqual([400, { message: "Invalid parameter 'address': must be at most 1000 bytes" }]);
  // At the limits themselves, names are simply not found.
  expect((await at(`/v3/${sandbox}/templates/${'a'.repeat(1000)}`)).json).toEqual({ message: 'template not found' });
  expect((await at(`/v4/domains/${'a'.repeat(249)}.com`)).json).toEqual({ message: 'Domain not found' });
});

it('answers request targets that cannot be decoded with a 4xx JSON message, and keeps answering', async () => {
  const undecodable = ['//[', 'http://%', 'http://[::1', '/v4/domains/%zz', '/v4/domains/%', '/v4/domains/%00', '/v4/domains/%E2%82', '*', `/v4/domains/${'a'.repeat(1020)}`];
  const problems: string[] = [];
  for (const target of [...undecodable, '/v4/domains?%zz=%&limit=%']) {
    const outcome = await sendRaw(`GET ${target} HTTP/1.1`);
    const c: Case = { name: `GET ${target}`, method: 'GET', path: target };
    const found = undecodable.includes(target) && outcome.status < 400 ? `${c.name} -> ${outcome.status}` : problem(c, outcome);
    if (found) problems.push(found);
  }
  expect(problems).toEqual([]);
  expect((await call(`${platform.us.url}/v4/domains`)).status).toBe(200);
});

it('refuses a multipart body cut off inside a field, a file part or before its closing boundary with a 400, and keeps answering', async () => {
  const refusals: Array<[string, number, unknown]> = [];
  for (const path of [`/v3/${sandbox}/messages`, `/v3/${sandbox}/bounces/import`]) {
    for (const [what, body] of truncatedMultiparts().slice(0, 3)) {
      const res = await send({ name: what, method: 'POST', path, ...body });
      refusals.push([`${path}: ${what}`, res.status, (JSON.parse(res.text) as { message?: unknown }).message]);
    }
  }
  expect(refusals).toEqual(refusals.map(([what]) => [what, 400, 'Malformed multipart/form-data body']));
  expect((await call(`${platform.us.url}/v4/domains`)).status).toBe(200);
});

it('survives clients that hang up mid-upload, inside a multipart file part or anywhere else', async () => {
  const [, insideFile] = truncatedMultiparts()[1]!;
  const whole = multipartBody([{ name: 'to', value: 'rcpt@example.com' }, { name: 'attachment', value: 'x'.repeat(64 * 1024), filename: 'big.bin' }]).toString('latin1');
  const heads = [`POST /v3/${sandbox}/messages HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=fuzzboundary`, `POST /v3/${sandbox}/bounces/import HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=fuzzboundary`];
  for (const head of heads) {
    await sendRaw(head, whole, 200);
    await sendRaw(head, whole, whole.indexOf('xxxx') + 100);
    await sendRaw(head, insideFile.body.toString('latin1'), 10);
  }
  expect((await call(`${platform.us.url}/v4/domains`)).status).toBe(200);
});
