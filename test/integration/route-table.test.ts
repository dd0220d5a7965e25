import { AUTHORIZER_CACHE_SECONDS } from '../../functions/authorizer/cache';
import { grants, roleAllows, type Role } from '../../functions/platform/access';
import { routes } from '../../functions/routes';
import type { RouteSpec } from '../../functions/platform/http/route';
import type { LocalPlatform } from '../../lib/local/platform';
import { apiKeys, call, sdk, startTestPlatform } from '../support/platform';

// Walks functions/routes.ts: every route authenticates, refuses malformed input with a JSON
// 4xx, and enforces the role matrix written in functions/platform/access.ts.
let platform: LocalPlatform;
const secrets = {} as Record<Role | 'domainKey' | 'otherDomainKey', string>;
const DOMAIN = 'matrix.example.com';

beforeAll(async () => {
  // Verdicts cached as the deployed API caches them: no key changes here, and each route is asked
  // with the same few keys.
  platform = await startTestPlatform({ authorizerCacheSeconds: AUTHORIZER_CACHE_SECONDS });
  const mg = sdk(platform.us.url);
  await mg.domains.create({ name: DOMAIN, dkim_key_size: '1024' } as never);
  await mg.domains.create({ name: 'other.example.com', dkim_key_size: '1024' } as never);
  for (const role of Object.keys(grants) as Role[]) {
    if (role === 'sending') continue;
    secrets[role] = (await apiKeys(mg).create({ role })).secret;
  }
  const domainKey = (domain: string) => apiKeys(mg).create({ role: 'sending', kind: 'domain', domain_name: domain });
  secrets.domainKey = (await domainKey(DOMAIN)).secret;
  secrets.otherDomainKey = (await domainKey('other.example.com')).secret;
});
afterAll(() => platform.close());

/** A concrete URL for a route; path values name things that do not exist, so nothing changes. */
function urlFor(route: RouteSpec, domain = 'absent.example.com'): string {
  const path = route.path.replace(/\{(\w+)\+?\}/g, (_, name: string) => (name === route.domainParam ? domain : `absent-${name}`));
  return `${platform.us.url}${path}`;
}

const keyed = routes.filter((route) => route.access !== 'public');
const cases = keyed.map((route, turn) => [`${route.method} ${route.path}`, route, turn] as const);
// Public routes with a credential in the path; the API reference's document and page have none (test/integration/openapi.test.ts).
const publicCases = routes.filter((route) => route.access === 'public' && route.path.includes('{')).map((route) => [`${route.method} ${route.path}`, route] as const);

describe.each(publicCases)('%s (public: the signed token or the share uuid in the path is the credential)', (_, route) => {
  it('answers a forged, altered or malformed credential with a JSON 404 (400 for a blank one), with or without a key', async () => {
    for (const token of ['forged', 'eyJhIjoiMSJ9.AAAAAAAAAAAAAAAAAAAAAA', '6f1c2a0e-3b8d-4c55-9a7e-2d1f0b9c8e7a', '']) {
      const res = await call(`${platform.us.url}${route.path.replace(/\{\w+\}/g, token || '%20')}`, { method: route.method, key: null });
      if (token) expect(res.status).toBe(404);
      else expect([400, 404]).toContain(res.status);
      expect(res.contentType).toBe('application/json');
    }
  });
});

/**
 * Malformed bodies that functions/platform/http/body.ts refuses before any route reads them: a
 * route's own part is the error body it answers in, so each route is sent one of them, in turn.
 */
const MALFORMED_BODIES = [
  ['application/json', '{"unterminated'],
  ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb'],
  ['multipart/form-data', 'no boundary at all'],
] as const;

describe.each(cases)('%s', (_, route, turn) => {
  it('answers 401 with a JSON message without credentials, or with a wrong key', async () => {
    for (const key of [null, 'wrong-key']) {
      const res = await call(urlFor(route), { method: route.method, key });
      expect(res.status).toBe(401);
      expect(res.contentType).toBe('application/json');
      expect(typeof res.json.message).toBe('string');
    }
  });

  it('answers a malformed body with a 4xx JSON message', async () => {
    const [contentType, body] = MALFORMED_BODIES[turn % MALFORMED_BODIES.length]!;
    const res = await call(urlFor(route), { method: route.method, contentType, body });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.contentType).toBe('application/json');
    // The route's own error body: `message`, or `Reason` where Mailgun answers so.
    expect(typeof res.json[route.errorField ?? 'message']).toBe('string');
  });

  it('lets each role in exactly as far as the matrix says', async () => {
    for (const role of Object.keys(grants) as Role[]) {
      if (role === 'sending') continue;
      const res = await call(urlFor(route), { method: route.method, key: secrets[role] });
      if (roleAllows(role, route.access)) expect([role, res.status]).not.toEqual([role, 403]);
      else expect([role, res.status, res.json.message]).toEqual([role, 403, 'Forbidden']);
      expect(res.status).not.toBe(401);
    }
  });

  it('keeps a domain key to sending for its own domain', async () => {
    const own = await call(urlFor(route, DOMAIN), { method: route.method, key: secrets.domainKey });
    const allowed = route.access === 'send' && route.domainParam !== undefined;
    if (allowed) expect(own.status).not.toBe(403);
    else expect(own.status).toBe(403);
    const other = await call(urlFor(route, DOMAIN), { method: route.method, key: secrets.otherDomainKey });
    expect(other.status).toBe(403);
  });
});

it('covers every area with at least one route', () => {
  expect(new Set(routes.map((r) => r.area))).toEqual(new Set(['keys', 'domains', 'dkim', 'credentials', 'messages', 'storage', 'events', 'suppressions', 'templates', 'tracking', 'certificates', 'tags', 'logs', 'analytics', 'webhooks', 'lists', 'mailroutes', 'inspect/links', 'inspect/images', 'inspect/accessibility', 'inspect/analyze', 'inspect/preview', 'admin/subaccounts', 'admin/limits', 'admin/allowlist', 'admin/users', 'admin/account', 'admin/ips', 'admin/sandbox', 'admin/dynamic-pools', 'optimize/domains', 'optimize/dmarc', 'optimize/health', 'optimize/blocklists', 'optimize/postmaster', 'optimize/alerts', 'optimize/spamtraps', 'optimize/inbox', 'openapi']));
});

it('reserves key management to admins and sending to the send access', () => {
  for (const route of routes.filter((r) => r.path.startsWith('/v1/keys'))) expect(route.access).toBe('admin');
  expect(grants.sending).toEqual(['send']);
  expect(grants.basic).toEqual(['read']);
});
