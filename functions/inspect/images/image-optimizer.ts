import sharp from 'sharp';
import { DAMAGED, decodeProblem, PIXEL_LIMIT_TEXT, withinPixelLimit } from './image-analyzer';

export type Optimized = { bytes: Buffer; format: string; mimeType: string; saved: number } | { error: string };

const MIME_OF: Readonly<Record<string, string>> = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif' };

/**
 * A smaller copy of an image in the same format (WebP and AVIF are not shown by many email
 * clients, caniemail `image-webp`/`image-avif`, so converting would trade bytes for broken
 * images): JPEG through mozjpeg, PNG quantised to a palette when that is smaller, GIF re-encoded
 * with every frame and delay kept; downscaled to twice the width the HTML shows it at, when that
 * is smaller than the file. Never larger than the original: then the original is returned, saving 0.
 * An image whose pixels cannot all be decoded (the test's Corrupt Image) is not optimized.
 */
export async function optimizeImage(bytes: Buffer, options: { displayWidth?: number } = {}): Promise<Optimized> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { animated: true }).metadata();
  } catch (error) {
    return { error: `Not an image sharp can read: ${(error as Error).message}` };
  }
  const format = meta.format ?? '';
  if (format === 'svg') return { error: 'SVG is not optimized here: it is shown by few email clients; export it as PNG instead' };
  const mimeType = MIME_OF[format];
  if (!mimeType) return { error: `${format.toUpperCase()} images are not optimized: convert to JPEG, PNG or GIF` };
  if (!withinPixelLimit(meta)) return { error: `the image has over ${PIXEL_LIMIT_TEXT}: too large to optimize here; resize it first` };
  const undecodable = await decodeProblem(bytes);
  if (undecodable) return { error: `the ${format.toUpperCase()} cannot be decoded (${undecodable})` };
  const animated = (meta.pages ?? 1) > 1;
  let pipeline = sharp(bytes, { animated });
  const target = options.displayWidth ? options.displayWidth * 2 : undefined;
  if (target && meta.width && meta.width > target) pipeline = pipeline.resize({ width: target, withoutEnlargement: true });
  let candidates: Buffer[];
  try {
    if (format === 'jpeg') candidates = [await pipeline.jpeg({ mozjpeg: true, quality: 80, progressive: true }).toBuffer()];
    else if (format === 'png') {
      candidates = [await pipeline.clone().png({ palette: true, quality: 90, effort: 10, compressionLevel: 9 }).toBuffer(), await pipeline.clone().png({ compressionLevel: 9, effort: 10 }).toBuffer()];
    } else if (format === 'gif') candidates = [await pipeline.gif({ effort: 7, ...(meta.delay ? { delay: meta.delay } : {}), ...(meta.loop !== undefined ? { loop: meta.loop } : {}) }).toBuffer()];
    else candidates = [await pipeline.toFormat(format as keyof sharp.FormatEnum).toBuffer()];
  } catch {
    // The user's image, not a fault of ours: its pixels failed to decode after all.
    return { error: `the ${format.toUpperCase()} cannot be decoded (${DAMAGED})` };
  }
  const best = candidates.reduce((a, b) => (b.length < a.length ? b : a));
  if (best.length >= bytes.length) return { bytes, format, mimeType, saved: 0 };
  return { bytes: best, format, mimeType, saved: bytes.length - best.length };
}
