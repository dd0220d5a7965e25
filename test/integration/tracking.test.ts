import type { LocalPlatform } from '../../lib/local/platform';
import { decoded, IPHONE, linksIn, mimeOf } from '../support/mail';
import { call, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// Open, click and unsubscribe tracking, from the domain settings to the events the links record.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;

type Ev = { event: string; recipient: string; url?: string; 'client-info'?: Record<string, string>; tags?: string[] };

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(() => platform.close());

const eventsOf = async (name: string, recipient: string) =>
  ((await call(`${platform.us.url}/v3/${sandbox}/events?event=${name}&recipient=${encodeURIComponent(recipient)}`)).json.items as Ev[]);

describe('settings', () => {
  it('are off by default and change one kind at a time, as the SDK sends them', async () => {
    const tracking = mg.domains.domainTracking;
    const initial = await tracking.getTracking(sandbox);
    expect(initial).toMatchObject({ open: { active: false }, click: { active: false }, unsubscribe: { active: false } });
    expect(await tracking.updateTracking(sandbox, 'open', { active: true, place_at_the_top: true } as never)).toMatchObject({ message: 'Domain tracking settings have been updated', open: { active: true, place_at_the_top: true } });
    expect(await tracking.updateTracking(sandbox, 'click', { active: 'htmlonly' } as never)).toMatchObject({ click: { active: true } });
    expect(await tracking.updateTracking(sandbox, 'unsubscribe', { active: false, html_footer: '<p><a href="%unsubscribe_url%">stop</a></p>' } as never)).toMatchObject({
      unsubscribe: { active: false, html_footer: '<p><a href="%unsubscribe_url%">stop</a></p>' },
    });
    const raw = await call(`${platform.us.url}/v3/domains/${sandbox}/tracking`);
    expect(raw.json).toMatchObject({ tracking: { open: { active: true }, click: { active: true }, web_scheme: 'http' } });
    await tracking.updateTracking(sandbox, 'open', { active: false } as never);
    await tracking.updateTracking(sandbox, 'click', { active: false } as never);
  });
});

describe('tracked mail', () => {
  it('rewrites links and adds a pixel per recipient; the links record clicks and opens', async () => {
    const sent = await mg.messages.create(sandbox, {
      from: `t@${sandbox}`,
      to: ['one@track.example', 'two@track.example'],
      subject: 'Tracked',
      html: '<html><body><a href="https://example.com/page?a=1&amp;b=2">go</a></body></html>',
      text: 'Visit https://example.com/plain',
      'o:tracking': 'yes',
      'o:tag': 'promo',
    } as never);
    const one = await mimeOf(platform.us, sent.id!, 'one@track.example');
    const two = await mimeOf(platform.us, sent.id!, 'two@track.example');
    // Each recipient's copy has its own links, and both still show both recipients in To.
    expect(linksIn(platform.us, one, 'c')[0]).not.toBe(linksIn(platform.us, two, 'c')[0]);
    expect(decoded(one)).toMatch(/^To: one@track\.example, two@track\.example$/m);
    expect(decoded(one)).not.toContain('href="https://example.com/page');
    expect(linksIn(platform.us, one, 'c')).toHaveLength(2);
    expect(linksIn(platform.us, one, 'o')).toHaveLength(1);

    // A link checker or mail scanner asks HEAD first: answered as the GET would be, and no click or open.
    for (const link of linksIn(platform.us, one, 'c')) {
      const head = await fetch(link, { method: 'HEAD', redirect: 'manual' });
      expect([head.status, head.headers.get('location')?.startsWith('https://example.com/')]).toEqual([302, true]);
    }
    const headPixel = await fetch(linksIn(platform.us, one, 'o')[0]!, { method: 'HEAD' });
    expect([headPixel.status, headPixel.headers.get('content-type')]).toEqual([200, 'image/gif']);

    const locations = [];
    for (const link of linksIn(platform.us, one, 'c')) {
      const click = await fetch(link, { redirect: 'manual', headers: { 'user-agent': IPHONE } });
      expect(click.status).toBe(302);
      locations.push(click.headers.get('location'));
    }
    // The text part's bare URL and the HTML part's link (entities decoded) both go through.
    expect(locations.sort()).toEqual(['https://example.com/page?a=1&b=2', 'https://example.com/plain']);
    const clicked = await eventually(async () => (await eventsOf('clicked', 'one@track.example')).find((e) => e.url?.includes('page')));
    expect(clicked).toMatchObject({ url: 'https://example.com/page?a=1&b=2', tags: ['promo'], 'client-info': { 'device-type': 'mobile', 'client-os': 'iOS' } });

    const pixel = await fetch(linksIn(platform.us, two, 'o')[0]!);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await pixel.arrayBuffer()).subarray(0, 3).toString()).toBe('GIF');
    await eventually(async () => (await eventsOf('opened', 'two@track.example')).length === 1);
    expect(await eventsOf('opened', 'one@track.example')).toEqual([]);
    // Two clicks for one: the GETs, not the HEADs before them.
    expect((await eventsOf('clicked', 'one@track.example')).length).toBe(2);
  });

  it('fills %unsubscribe_url% and %tag_unsubscribe_url%, and following them unsubscribes with the right scope', async () => {
    const sent = await mg.messages.create(sandbox, {
      from: `t@${sandbox}`,
      to: 'leaver@track.example',
      subject: 'News',
      text: 'Stop all: %unsubscribe_url% Stop news: %tag_unsubscribe_url%',
      'o:tag': 'news',
    } as never);
    const links = linksIn(platform.us, await mimeOf(platform.us, sent.id!, 'leaver@track.example'), 'u');
    expect(links).toHaveLength(2);
    const page = await fetch(links[1]!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<meta name="robots" content="noindex">[\s\S]*You have been unsubscribed\./);
    // The strict headers of every public page: no script, nothing loaded, not framed, no referrer.
    expect(Object.fromEntries(['content-type', 'content-security-policy', 'referrer-policy', 'x-content-type-options', 'cache-control'].map((name) => [name, page.headers.get(name)]))).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    const entry = await eventually(async () => {
      const res = await call(`${platform.us.url}/v3/${sandbox}/unsubscribes/leaver@track.example`);
      return res.status === 200 ? res.json : undefined;
    });
    expect(entry.tags).toEqual(['news']);
    await eventually(async () => (await eventsOf('unsubscribed', 'leaver@track.example')).length === 1);
    // RFC 8058 one-click, as mail clients send it.
    const oneClick = await fetch(links[0]!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    await eventually(async () => ((await call(`${platform.us.url}/v3/${sandbox}/unsubscribes/leaver@track.example`)).json.tags as string[]).includes('*'));
  });

  it('adds the footer and one-click List-Unsubscribe headers when unsubscribe tracking is on', async () => {
    await mg.domains.domainTracking.updateTracking(sandbox, 'unsubscribe', { active: true } as never);
    const sent = await mg.messages.create(sandbox, { from: `t@${sandbox}`, to: 'footer@track.example', subject: 'F', html: '<p>hello</p>' } as never);
    const mime = decoded(await mimeOf(platform.us, sent.id!, 'footer@track.example'));
    expect(mime).toMatch(/^List-Unsubscribe:\s+<http:\/\/127\.0\.0\.1:\d+\/u\/[^>]+>\s*$/m);
    expect(mime).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(linksIn(platform.us, mime, 'u').length).toBeGreaterThanOrEqual(2);
    await mg.domains.domainTracking.updateTracking(sandbox, 'unsubscribe', { active: false } as never);
  });

  it('refuses an altered link', async () => {
    const sent = await mg.messages.create(sandbox, { from: `t@${sandbox}`, to: 'alter@track.example', html: '<a href="https://example.com/x">x</a>', 'o:tracking-clicks': 'yes' } as never);
    const link = linksIn(platform.us, await mimeOf(platform.us, sent.id!, 'alter@track.example'), 'c')[0]!;
    const [payload, signature] = link.split('/c/')[1]!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, u: 'https://evil.example/' })).toString('base64url');
    const res = await fetch(`${platform.us.url}/c/${forged}.${signature}`, { redirect: 'manual' });
    expect(res.status).toBe(404);
    // Another spelling of the same signature bytes (a last character differing in unused bits) is
    // not the signature either.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = signature!.slice(0, -1) + alphabet[alphabet.indexOf(signature!.at(-1)!) ^ 1];
    expect(Buffer.from(respelled, 'base64url').equals(Buffer.from(signature!, 'base64url'))).toBe(true);
    expect((await fetch(`${platform.us.url}/c/${payload}.${respelled}`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${platform.us.url}/c/${payload}.${signature}`, { redirect: 'manual' })).status).toBe(302);
  });
});
