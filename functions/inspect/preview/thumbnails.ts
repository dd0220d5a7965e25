import sharp, { type Colour, type Region } from 'sharp';
import type { ThumbnailName } from './screenshots';

// Apart from screenshots.ts: the API area names screenshots but never makes thumbnails, and
// sharp (a native module) is installed only beside the render task's bundle.

const THUMBNAIL_WIDTH = 200;
const THUMBNAIL_HEIGHT = 300;
/** A full-length thumbnail of a very long email stays a sane file. */
const FULL_THUMBNAIL_MAX_HEIGHT = 4_000;
/**
 * How far down the email is looked for, in screenshot widths: the thumbnail shows at most 1.5
 * widths, and a page cut at 16,000 pixels would otherwise be searched whole.
 */
const SEARCHED_WIDTHS = 2;
/** The width the email is looked for at (see emailArea). */
const SEARCH_WIDTH = 400;
/** Room kept around the email, as a share of its width, so its edges are not flush with the card's. */
const MARGIN = 0.04;

/** `thumbnail`: the top of the email at 200x300; `full_thumbnail`: the whole of it 200 pixels wide. */
export async function thumbnailsOf(png: Buffer): Promise<Record<ThumbnailName, Buffer>> {
  const full = await sharp(png).resize({ width: THUMBNAIL_WIDTH, height: FULL_THUMBNAIL_MAX_HEIGHT, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
  const background = await bottomLeft(full);
  const thumbnail = await sharp(png)
    .extract(await emailTop(png, background))
    .resize({ width: THUMBNAIL_WIDTH, height: THUMBNAIL_HEIGHT, fit: 'contain', position: 'top', background })
    .png()
    .toBuffer();
  return { thumbnail, full_thumbnail: full };
}

/**
 * The page's background: the colour of its bottom-left corner (the top-left one is often an
 * email's banner, whose top would be trimmed off as background), read from the full thumbnail,
 * which is small where the screenshot can be 16,000 pixels tall.
 */
async function bottomLeft(full: Buffer): Promise<Colour> {
  const { height } = await sharp(full).metadata();
  const [r, g, b] = await sharp(full).extract({ left: 0, top: height - 1, width: 1, height: 1 }).removeAlpha().toColourspace('srgb').raw().toBuffer();
  return { r: r!, g: g!, b: b! };
}

/**
 * The part of a screenshot the thumbnail shows: from the top of the email, as wide as the email
 * (with a margin; never narrower than the thumbnail, which is then never enlarged), as tall as the
 * thumbnail's proportions ask or the page has (the rest is the page's background). A web or
 * desktop client's screenshot is a window wider than tall with the email somewhere in it, often a
 * column at the left: the top of the whole window in those proportions is a strip of its middle,
 * often blank.
 */
async function emailTop(png: Buffer, background: Colour): Promise<Region> {
  const { width, height } = await sharp(png).metadata();
  const email = await emailArea(png, width, height, background);
  const margin = Math.round(email.width * MARGIN);
  const top = Math.max(0, email.top - margin);
  const shown = Math.min(width, Math.max(email.width + 2 * margin, THUMBNAIL_WIDTH));
  const left = Math.min(Math.max(0, email.left + Math.round((email.width - shown) / 2)), width - shown);
  return { left, top, width: shown, height: Math.min(height - top, Math.round((shown * THUMBNAIL_HEIGHT) / THUMBNAIL_WIDTH)) };
}

/**
 * Where the email is in the top of a screenshot: what differs from the page's background. A
 * screenshot all background is all email. Looked for in a copy SEARCH_WIDTH wide: a box a few
 * pixels out is as good, and trimming a phone's full-size screenshot takes several times as long
 * as thumbnailing it.
 */
async function emailArea(png: Buffer, width: number, height: number, background: Colour): Promise<Region> {
  const searched = Math.min(height, width * SEARCHED_WIDTHS);
  const scale = Math.min(1, SEARCH_WIDTH / width);
  const { data, info } = await sharp(png)
    .extract({ left: 0, top: 0, width, height: searched })
    .resize({ width: Math.round(width * scale) })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Too small to trim (libvips needs 3x3): it is all email.
  if (info.width < 3 || info.height < 3) return { left: 0, top: 0, width, height };
  const trimmed = (await sharp(data, { raw: info }).trim({ background }).raw().toBuffer({ resolveWithObject: true })).info;
  const left = -(trimmed.trimOffsetLeft ?? 0);
  const top = -(trimmed.trimOffsetTop ?? 0);
  const inPage = { left: Math.floor(left / scale), top: Math.floor(top / scale) };
  return {
    ...inPage,
    width: Math.min(width, Math.ceil((left + trimmed.width) / scale)) - inPage.left,
    height: Math.min(height, Math.ceil((top + trimmed.height) / scale)) - inPage.top,
  };
}
