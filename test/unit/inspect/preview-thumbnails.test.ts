import sharp from 'sharp';
import { PREVIEW_CLIENTS } from '../../../functions/inspect/preview/clients';
import { closeBrowser, renderEmail } from '../../../functions/inspect/preview/renderer';
import { thumbnailsOf } from '../../../functions/inspect/preview/thumbnails';
import { transformForClient } from '../../../functions/inspect/preview/transforms/transform-for-client';
import { withEnv } from '../../../functions/platform/env';

// The thumbnails of real screenshots: each email transformed and rendered for the client in the
// Chromium `npm ci` installed, as the render task does, then thumbnailed. A preview grid shows
// these cards; each must show the top of the email, whatever the client's window is like.

const HELLO = '<!doctype html><html><body><p style="font-family: Arial, sans-serif">Hello preview</p></body></html>';
const CARD_WIDTH = 600;
const CARD = `<!doctype html><html><body style="margin: 0; background: #dddddd">
<table width="${CARD_WIDTH}" align="center" cellpadding="0" cellspacing="0" style="background: #ffffff"><tr><td style="padding: 24px; font-family: Arial, sans-serif">
<h1>Spring sale</h1><p>Everything 20% off this week.</p><p>Free delivery on every order over 50 euros.</p>
</td></tr></table></body></html>`;

// Every kind of window: web clients (1280 wide), desktop applications (1024), phones, phones in dark mode.
const CLIENTS = ['gmail_chr26_win', 'outlookcom_chr26_win', 'yahoo_chr26_win', 'ol365_win', 'appmail14', 'iphone15_17', 'android10_gmailapp_pixel4_dm'];

/** The default screenshot the render task takes of an email for a client. */
function screenshot(clientId: string, html: string): Promise<Buffer> {
  const client = PREVIEW_CLIENTS.get(clientId)!;
  // The renderer reads the platform's settings (CHROMIUM_PATH) but needs no table.
  return withEnv({ ...process.env, TABLE_NAME: 'unused' }, async () => (await renderEmail({ html: transformForClient(html, client).html, viewport: client.viewport, dark: client.dark, blockImages: false, landscape: false })).png);
}

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  at(x: number, y: number): [number, number, number];
}

async function pixelsOf(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number): [number, number, number] => {
    const offset = (y * info.width + x) * info.channels;
    return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
  };
  return { data, width: info.width, height: info.height, at };
}

const distance = (a: number[], b: number[]) => Math.max(...a.map((value, i) => Math.abs(value - b[i]!)));

/** The rows holding ink: pixels far from the card's background (its bottom-left corner), as text is. */
function inkRows(pixels: Pixels): number[] {
  const background = pixels.at(0, pixels.height - 1);
  const rows: number[] = [];
  for (let y = 0; y < pixels.height; y++) {
    let ink = 0;
    for (let x = 0; x < pixels.width; x++) if (distance(pixels.at(x, y), background) > 96) ink++;
    if (ink > 0) rows.push(y);
  }
  return rows;
}

afterAll(() => closeBrowser(process.env['CHROMIUM_PATH']));

test.each(CLIENTS)("%s: the thumbnail is the top of the email, its text there to read", async (clientId) => {
  const { thumbnail } = await thumbnailsOf(await screenshot(clientId, HELLO));
  const pixels = await pixelsOf(thumbnail);
  expect([pixels.width, pixels.height]).toEqual([200, 300]);
  const rows = inkRows(pixels);
  // A line of text, near the top: not a blank card, nor the page shrunk until the text is a speck.
  expect(rows.length).toBeGreaterThanOrEqual(8);
  expect(rows[0]).toBeLessThan(60);
});

test('a web client\'s thumbnail is the email\'s column, whole and at the top, not a strip of the window around it', async () => {
  const { thumbnail } = await thumbnailsOf(await screenshot('gmail_chr26_win', CARD));
  const pixels = await pixelsOf(thumbnail);
  const page = [0xdd, 0xdd, 0xdd];
  // A row through the card below its heading: the page's grey at both sides, the white card between them.
  const row = Array.from({ length: pixels.width }, (_, x) => pixels.at(x, 40));
  const white = row.flatMap((colour, x) => (distance(colour, [255, 255, 255]) <= 8 ? [x] : []));
  expect(distance(row[0]!, page)).toBeLessThanOrEqual(8);
  expect(distance(row[pixels.width - 1]!, page)).toBeLessThanOrEqual(8);
  expect(white.length).toBeGreaterThan(150);
  expect(inkRows(pixels)[0]).toBeLessThan(40);
});

test('the full thumbnail is the whole screenshot, 200 wide', async () => {
  const png = await screenshot('gmail_chr26_win', CARD);
  const shot = await sharp(png).metadata();
  const full = await sharp((await thumbnailsOf(png)).full_thumbnail).metadata();
  expect(full.width).toBe(200);
  expect(full.height).toBe(Math.round((shot.height * 200) / shot.width));
});
