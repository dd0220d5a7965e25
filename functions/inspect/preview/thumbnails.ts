import sharp from 'sharp';
import type { ThumbnailName } from './screenshots';

// Apart from screenshots.ts: the API area names screenshots but never makes thumbnails, and
// sharp (a native module) is installed only beside the render task's bundle.

const THUMBNAIL_WIDTH = 200;
const THUMBNAIL_HEIGHT = 300;
/** A full-length thumbnail of a very long email stays a sane file. */
const FULL_THUMBNAIL_MAX_HEIGHT = 4_000;

/** `thumbnail`: the top of the email at 200x300; `full_thumbnail`: the whole of it 200 pixels wide. */
export async function thumbnailsOf(png: Buffer): Promise<Record<ThumbnailName, Buffer>> {
  const thumbnail = await sharp(png).resize({ width: THUMBNAIL_WIDTH, height: THUMBNAIL_HEIGHT, fit: 'cover', position: 'top' }).png().toBuffer();
  const full = await sharp(png).resize({ width: THUMBNAIL_WIDTH, height: FULL_THUMBNAIL_MAX_HEIGHT, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
  return { thumbnail, full_thumbnail: full };
}
