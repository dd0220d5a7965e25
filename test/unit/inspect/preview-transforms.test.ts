import { PREVIEW_CLIENTS } from '../../../functions/inspect/preview/clients';
import { transformForClient } from '../../../functions/inspect/preview/transforms/transform-for-client';
import { parseListTime } from '../../../functions/inspect/preview/list-filter';
import { rendersFor } from '../../../functions/inspect/preview/screenshots';
import { caughtMessage } from '../../../functions/inspect/preview/workflow-error';

// What each client's transform does to an email, as the result's `applied` list reports it: the
// part of a preview that decides how close it is to the client, checked without a browser.
const client = (id: string) => PREVIEW_CLIENTS.get(id)!;

const EMAIL = `<!doctype html><html><head><style>
.card { border-radius: 8px; display: flex; gap: 10px; color: #333 }
@media (max-width: 600px) { .card { color: blue } }
@font-face { font-family: Brand; src: url(https://example.com/brand.woff2) }
</style></head><body>
<style>.late { color: red }</style>
<div class="card" style="box-shadow: 0 0 2px #000; padding: 4px; position: relative">Hi</div>
<!--[if mso]><v:roundrect href="https://example.com"><v:textbox><center>Outlook button</center></v:textbox></v:roundrect><![endif]-->
<!--[if !mso]><!--><a class="card" href="https://example.com">HTML button</a><!--<![endif]-->
<svg width="10" height="10"></svg><form action="https://example.com"><input name="q"></form>
<script>alert(1)</script>
</body></html>`;

test('Gmail drops body styles, the properties and elements it strips, and @font-face; keeps conditional comments as comments', () => {
  const { html, applied } = transformForClient(EMAIL, client('gmail_chr26_win'));
  expect(html).not.toContain('.late');
  expect(html).not.toContain('box-shadow');
  expect(html).not.toContain('position');
  expect(html).not.toContain('@font-face');
  expect(html).not.toMatch(/<svg|<form|<script/);
  expect(html).toContain('<!--[if mso]>');
  expect(html).toContain('HTML button');
  expect(html).toContain('border-radius');
  expect(applied).toEqual(expect.arrayContaining(['<style> inside <body> removed', 'box-shadow declarations (Gmail strips them)', '<svg> removed (Gmail strips it)']));
});

test('Gmail removes a <style> block over 16 KB whole, and one with a CSS error', () => {
  const big = `<html><head><style>${'.a{color:red}'.repeat(1400)}</style><style>.b{color:blue}</style></head><body></body></html>`;
  const { html, applied } = transformForClient(big, client('gmail_chr26_win'));
  expect(html).not.toContain('.a{');
  expect(html).toContain('.b{color:blue}');
  expect(applied).toContain('<style> block over 16 KB removed whole');
  const broken = transformForClient('<html><head><style>.a { color: red; } }}} @@</style></head><body></body></html>', client('gmail_chr26_win'));
  expect(broken.html).not.toContain('color:red');
  expect(broken.applied).toContain('<style> block with a CSS error removed whole');
});

test('Gmail clips a message over 102 KB with its marker', () => {
  const long = `<html><body>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(4000)}</body></html>`;
  const { html, applied } = transformForClient(long, client('gmail_chr26_win'));
  expect(html).toContain('[Message clipped]');
  expect(Buffer.byteLength(html)).toBeLessThan(103 * 1024);
  expect(applied).toContain('message clipped after 102 KB, as the client does');
});

test("Outlook's Word engine shows [if mso] content, hides the rest, unwraps VML, and drops what caniemail says it lacks", () => {
  const { html, applied } = transformForClient(EMAIL, client('ol365_win'));
  expect(html).toContain('<center>Outlook button</center>');
  expect(html).not.toContain('v:roundrect');
  expect(html).not.toContain('HTML button');
  expect(html).not.toContain('border-radius');
  expect(html).toContain('display:block');
  // caniemail: @media is not supported in Outlook on Windows.
  expect(html).not.toContain('@media');
  expect(applied).toEqual(expect.arrayContaining(['VML shapes unwrapped to their text (a browser cannot draw VML) x2', '@media rules using @media (not supported in Outlook 365, caniemail)']));
});

test('Outlook.com prefixes class names in rules and attributes alike, so the styles still apply', () => {
  const { html } = transformForClient(EMAIL, client('outlookcom_chr26_win'));
  expect(html).toContain('.x_card{');
  expect(html).toContain('class="x_card"');
  expect(html).not.toContain('.late');
});

test('Apple Mail passes the email through but for scripts, and notes partial support', () => {
  const { html, applied } = transformForClient(EMAIL, client('appmail14'));
  expect(html).toContain('box-shadow');
  expect(html).toContain('.late');
  expect(html).toContain('<svg');
  expect(html).not.toContain('<script');
  expect(applied.some((entry) => entry.startsWith('partial support of'))).toBe(true);
});

test('dark-mode clients get their dark mode: an inversion for Gmail\'s app, the colour scheme for Apple Mail', () => {
  expect(transformForClient(EMAIL, client('android10_gmailapp_pixel4_dm')).html).toContain('filter:invert(1) hue-rotate(180deg)');
  expect(transformForClient(EMAIL, client('iphone15_17_dm')).html).toContain(':root{color-scheme:light dark}');
  expect(transformForClient(EMAIL, client('iphone15_17')).html).not.toContain('color-scheme');
});

test('which screenshots a client gets: no_images when both allow it, horizontal when the client rotates', () => {
  expect(rendersFor(client('iphone15_17'), true)).toEqual(['default', 'no_images', 'horizontal', 'horizontal_no_images']);
  expect(rendersFor(client('iphone15_17'), false)).toEqual(['default', 'horizontal']);
  expect(rendersFor(client('gmail_chr26_win'), true)).toEqual(['default', 'no_images']);
  expect(rendersFor(client('android10_gmailapp_pixel4_dm'), true)).toEqual(['default']);
});

test("the list's times: Mailgun's format, unix seconds, and words", () => {
  const now = Date.UTC(2026, 10, 26, 12, 0, 0);
  expect(parseListTime('2025-03-10 17:52:07', 'from', now)).toBe(Date.UTC(2025, 2, 10, 17, 52, 7) / 1000);
  expect(parseListTime('1741629127', 'from', now)).toBe(1741629127);
  expect(parseListTime('yesterday', 'from', now)).toBe(Date.UTC(2026, 10, 25) / 1000);
  expect(() => parseListTime('someday', 'from', now)).toThrow("Invalid 'from'");
});

test("a caught error's message is its first line, from a Lambda error's JSON or a plain cause", () => {
  expect(caughtMessage({ Error: 'RenderFailed', Cause: JSON.stringify({ errorMessage: 'page crashed\nBrowser logs: ...' }) })).toBe('page crashed');
  expect(caughtMessage({ Error: 'States.Timeout', Cause: 'Task timed out' })).toBe('Task timed out');
  expect(caughtMessage(undefined)).toBe('unknown error');
});
