import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { Findings, isBroken, type PlacedFindings } from '../common/finding';
import { poorlySupportedFormat } from './format-support';
import type { ImageRef } from './image-extractor';

/** A checked image as contract §2 shows it. */
export interface ImageResult extends PlacedFindings {
  id: string;
  url: string;
  status: 'Valid' | 'Invalid' | 'Error';
}

export interface ImageInput {
  /** The image's id in its test (24 hex characters), used by `/optimize/{image_id}`. */
  id: string;
  url: string;
  ref?: ImageRef;
  bytes?: Buffer;
  /** The HTTP status of the fetch; absent for uploads and data: URIs. */
  status?: number;
  loadTimeMs?: number | null;
  /** Why the image could not be fetched at all. */
  fetchError?: string;
}

const LARGE_BYTES = 200 * 1024;
const HUGE_BYTES = 1024 * 1024;
const SLOW_MS = 2000;
/** Larger images are refused by sharp rather than decoded: a decompression bomb must not stall the worker. */
const MAX_PIXELS = 100_000_000;

/** sharp's format names as people write them. */
const FORMAT_NAMES: Record<string, string> = { jpeg: 'JPEG', png: 'PNG', gif: 'GIF', webp: 'WEBP', avif: 'AVIF', heif: 'HEIF', svg: 'SVG', tiff: 'TIFF', jp2: 'JPEG 2000', jxl: 'JPEG XL' };

const BITS_OF_DEPTH: Record<string, number> = { uchar: 8, char: 8, ushort: 16, short: 16, uint: 32, int: 32, float: 32, double: 64 };

function resultOf(input: ImageInput, findings: Findings, status: ImageResult['status']): ImageResult {
  return {
    id: input.id,
    url: input.url,
    status,
    line: input.ref?.line ?? null,
    column: input.ref?.column ?? null,
    selector: input.ref?.selector ?? null,
    absolute_index: input.ref?.absolute_index ?? null,
    passes: findings.passes,
    failures: findings.failures,
    informational: findings.informational,
  };
}

/** What the HTML says about the image: alt text, dimension attributes, and whether the file fits its slot. */
function judgeMarkup(findings: Findings, ref: ImageRef, width: number | undefined): void {
  if (ref.source === 'img' || ref.source === 'vml') {
    if (ref.alt === null || ref.alt === undefined) {
      findings.fail('alt_attribute_check', 'Missing Alt Text', 'serious', 'The image has no alt attribute: screen readers read its file name, and clients that block images show nothing in its place.', 'Add alt text that says what the image shows, or alt="" if it is decorative.');
    } else findings.pass('alt_attribute_check', 'Alt Text Present', 'The image has an alt attribute.', [{ alt: ref.alt }]);
  }
  if (ref.source === 'img') {
    if (!ref.hasDimensionAttributes) {
      findings.fail('dimension_attributes_check', 'Missing Dimension Attributes', 'minor', 'Without width and height attributes Outlook shows the image at its own size, and the layout jumps as images load.', 'Add width and height attributes.');
    } else findings.pass('dimension_attributes_check', 'Dimension Attributes Present', 'The image says its width and height.');
  }
  if (ref.declaredWidth && width) {
    const details = [{ declared_width: ref.declaredWidth, intrinsic_width: width }];
    if (width > 3 * ref.declaredWidth) {
      findings.fail('retina_check', 'Oversized Image', 'moderate', `The file is ${width}px wide for a ${ref.declaredWidth}px slot: readers download far more than they see.`, `Resize it to about ${2 * ref.declaredWidth}px wide (twice the slot, for high-density screens).`, details);
    } else if (width < 2 * ref.declaredWidth) {
      findings.fail('retina_check', 'Not Retina Ready', 'minor', `The file is ${width}px wide for a ${ref.declaredWidth}px slot: it looks soft on high-density screens.`, `Supply it at ${2 * ref.declaredWidth}px wide.`, details);
    } else findings.pass('retina_check', 'Retina Ready', 'The file is about twice as wide as its slot.', details);
  }
}

/** A stream's end for pixels decoded only to see that they decode. */
const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** What any failure to decode an image's pixels comes to, said the same way every time. */
export const DAMAGED = 'its data is damaged or cut off';

/** Whether sharp may decode the image's pixels: beyond the limit they are not read at all (a decompression bomb must not stall the worker). */
export const withinPixelLimit = (meta: Pick<sharp.Metadata, 'width' | 'height'>): boolean => (meta.width ?? 0) * (meta.height ?? 0) <= MAX_PIXELS;

/** The limit as people read it. */
export const PIXEL_LIMIT_TEXT = `${MAX_PIXELS / 1_000_000} million pixels`;

/**
 * Why the image's pixels cannot be read (DAMAGED), or undefined when they can. The header alone
 * (metadata) reads fine from a file whose data is damaged (a PNG chunk failing its checksum, a
 * cut-off file): only decoding every pixel, as a client does, finds it. The pixels stream out and
 * are dropped, so the whole image is never held in memory. Not `stats()`: with other decodes under
 * way it can resolve for a damaged image. libvips's own words are not passed on: it keeps one
 * error buffer per process, so with other images at work at the same moment they can be another
 * image's, or none.
 */
export async function decodeProblem(bytes: Buffer): Promise<typeof DAMAGED | undefined> {
  try {
    await pipeline(sharp(bytes, { animated: true, limitInputPixels: MAX_PIXELS }).raw(), discard());
    return undefined;
  } catch {
    return DAMAGED;
  }
}

/**
 * Checks one image from its bytes (sharp reads the real format from them, never from the name):
 * reachability, format and its support across clients, dimensions, size, load time, animation,
 * colour depth and transparency, and what the HTML around it says.
 */
export async function analyzeImage(input: ImageInput): Promise<ImageResult> {
  const findings = new Findings();
  if (input.url.startsWith('http:')) findings.fail('https_check', 'Insecure Image URL', 'minor', 'The image is loaded over plain http: some clients block it or warn about mixed content.', 'Serve it over https.');
  if (input.fetchError !== undefined || !input.bytes || (input.status !== undefined && (input.status < 200 || input.status >= 300))) {
    const details = input.fetchError !== undefined ? [{ error: input.fetchError }] : [{ status_code: input.status ?? null }];
    findings.fail('image_reachable_check', 'Broken Image', 'critical', input.fetchError ? `The image could not be fetched: ${input.fetchError}.` : `The image URL answers HTTP ${input.status}.`, 'Fix the image URL or the server.', details);
    return resultOf(input, findings, 'Error');
  }
  findings.pass('image_reachable_check', 'Image Reachable', 'The image loads.', input.status === undefined ? [] : [{ status_code: input.status }]);
  let meta: sharp.Metadata;
  try {
    meta = await sharp(input.bytes, { animated: true, limitInputPixels: MAX_PIXELS }).metadata();
  } catch (error) {
    findings.fail('image_format_check', 'Unreadable Image', 'critical', `The file is not an image any client can show: ${(error as Error).message}.`, 'Upload a JPEG, PNG or GIF.', [{ format: 'unknown' }]);
    return resultOf(input, findings, 'Error');
  }
  const format = FORMAT_NAMES[meta.format ?? ''] ?? String(meta.format ?? 'unknown').toUpperCase();
  findings.inform('image_format_check', 'Image Format Detected', 'The format read from the file itself.', [{ format }]);
  // Beyond the pixel limit the pixels are not read at all (so neither found damaged nor sound).
  if (withinPixelLimit(meta)) {
    const undecodable = await decodeProblem(input.bytes);
    if (undecodable) {
      findings.fail('image_decode_check', 'Corrupt Image', 'critical', `The ${format} file cannot be decoded (${undecodable}): clients show a broken image, or only part of it.`, 'Export the image again from its source and replace the file.', [{ error: undecodable }]);
    } else findings.pass('image_decode_check', 'Image Decodes', 'Every pixel of the image reads back.');
  }
  const unsupported = poorlySupportedFormat(meta.format ?? '');
  if (unsupported) findings.fail('image_format_support_check', 'Format Poorly Supported', 'serious', `${format} is not shown by ${unsupported.join(', ')} (caniemail).`, 'Use JPEG, PNG or GIF.', [{ format, unsupported_clients: unsupported }]);

  const width = meta.width;
  const height = meta.pages && meta.pageHeight ? meta.pageHeight : meta.height;
  findings.inform('image_dimensions_check', 'Image Dimensions', 'The image\'s own size in pixels.', [{ width: width ?? null, height: height ?? null }]);

  const size = input.bytes.length;
  if (size > HUGE_BYTES) findings.fail('image_file_size_check', 'Large File Size', 'serious', `The file is ${(size / 1024 / 1024).toFixed(1)} MB: slow on mobile data, and some clients clip heavy emails.`, 'Compress or resize it (POST .../optimize).', [{ file_size: size }]);
  else if (size > LARGE_BYTES) findings.fail('image_file_size_check', 'Large File Size', 'moderate', `The file is ${Math.round(size / 1024)} KB; email images are best under 200 KB.`, 'Compress or resize it (POST .../optimize).', [{ file_size: size }]);
  else findings.pass('image_file_size_check', 'File Size Acceptable', 'The file is small enough for email.', [{ file_size: size }]);

  if (input.loadTimeMs !== undefined && input.loadTimeMs !== null) {
    const ms = Math.round(input.loadTimeMs);
    if (ms > SLOW_MS) findings.fail('load_time_check', 'Slow Load Time', 'moderate', `The image took ${ms} ms to load.`, 'Serve it from a faster host or a CDN, and make it smaller.', [{ load_time_ms: ms }]);
    else findings.pass('load_time_check', 'Fast Load Time', 'The image loads quickly.', [{ load_time_ms: ms }]);
  }

  if ((meta.pages ?? 1) > 1) {
    const delays = meta.delay ?? [];
    findings.inform('animated_image_check', 'Animated Image', 'An animation: classic Outlook for Windows shows only its first frame, so that frame should carry the message.', [
      { frames: meta.pages, duration_ms: delays.reduce((sum, d) => sum + d, 0), loop: meta.loop ?? null },
    ]);
  }
  const bits = meta.bitsPerSample ?? BITS_OF_DEPTH[meta.depth ?? ''] ?? null;
  findings.inform('color_depth_check', 'Color Depth', 'Bits per sample, and whether the image uses a palette.', [{ bits_per_sample: bits, is_palette: meta.isPalette ?? false, channels: meta.channels ?? null }]);
  findings.inform('transparency_check', 'Transparency', 'Whether the image has an alpha channel; transparent areas show the background, which dark mode changes.', [{ has_alpha: meta.hasAlpha ?? false }]);

  if (input.ref) judgeMarkup(findings, input.ref, width);
  return resultOf(input, findings, isBroken(findings) ? 'Invalid' : 'Valid');
}
