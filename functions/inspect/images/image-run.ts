import { mapLimit } from '../../platform/concurrency';
import { objectId } from '../../platform/ids';
import { analyzeImage, type ImageResult } from './image-analyzer';
import type { ImageRef } from './image-extractor';

export interface FetchedImage {
  status: number;
  bytes?: Buffer;
  loadTimeMs: number;
  error?: string;
}

export interface ImageRun {
  images: ImageResult[];
  total_load_time_ms: number;
  /** The bytes read of each image by its id, for optimisation later. */
  bytes: Map<string, Buffer>;
  /** The width each image is shown at in the HTML, by id, when the HTML says. */
  declaredWidths: Record<string, number>;
}

/** `data:` URIs carry their bytes: decoded here, never fetched. */
function decodeDataUri(url: string): Buffer | undefined {
  const match = /^data:[^,]*?(;base64)?,(.*)$/is.exec(url);
  if (!match) return undefined;
  return match[1] ? Buffer.from(match[2]!, 'base64') : Buffer.from(decodeURIComponent(match[2]!), 'latin1');
}

/**
 * Checks every image, fetched through `fetchImage` (the SSRF-safe client) at most `concurrency` at
 * a time; each image of the same URL is fetched once. `total_load_time_ms` is the wall time of all
 * the fetching, what a reader waits for the images with that concurrency.
 */
export async function checkImages(refs: Array<ImageRef | string>, fetchImage: (url: string) => Promise<FetchedImage>, options: { concurrency?: number } = {}): Promise<ImageRun> {
  const started = Date.now();
  const fetches = new Map<string, Promise<FetchedImage>>();
  const fetchOnce = (url: string) => {
    let pending = fetches.get(url);
    if (!pending) fetches.set(url, (pending = fetchImage(url)));
    return pending;
  };
  const bytes = new Map<string, Buffer>();
  const declaredWidths: Record<string, number> = {};
  const images = await mapLimit(refs, options.concurrency ?? 8, async (item) => {
    const ref = typeof item === 'string' ? undefined : item;
    const url = typeof item === 'string' ? item : item.url;
    const id = objectId();
    if (ref?.declaredWidth) declaredWidths[id] = ref.declaredWidth;
    if (url.startsWith('data:')) {
      const data = decodeDataUri(url);
      if (data) bytes.set(id, data);
      return analyzeImage({ id, url: url.length > 100 ? `${url.slice(0, 100)}...` : url, ref, bytes: data, fetchError: data ? undefined : 'malformed data: URI' });
    }
    const fetched = await fetchOnce(url);
    if (fetched.bytes) bytes.set(id, fetched.bytes);
    return analyzeImage({ id, url, ref, bytes: fetched.bytes, status: fetched.status, loadTimeMs: fetched.loadTimeMs, fetchError: fetched.error });
  });
  return { images, total_load_time_ms: Date.now() - started, bytes, declaredWidths };
}
