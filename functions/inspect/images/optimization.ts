import { BadRequest, NotFound } from '../../platform/errors';
import { mapLimit } from '../../platform/concurrency';
import { objectId } from '../../platform/ids';
import { getBytes, PROCESSING, putBytes, readResult, updateTestMeta, type InspectTest } from '../common/inspect-store';
import { COMPLETE, optimizedKey, originalKey, type ImageTestResult } from './image-test';

/** One optimised image as contract §2's ImageOptimization lists it, plus what it saved (our addition). */
export interface OptimizedImage {
  id: string;
  original_image_id: string;
  image_url: string;
  optimized_file_size: string;
  optimized_format: string;
  optimized_mime_type: string;
  /** Not measured: an optimised copy is served by this API, not from where the email will load it. */
  load_time_ms: number | null;
  status: 'Complete' | 'Error';
  error_message: string | null;
  original_file_size: string;
  saved_bytes: number;
}

/** The test's optimisation so far: one id, and the latest optimisation of each image by image id. */
export interface StoredOptimization {
  id: string;
  images: Record<string, OptimizedImage>;
}

/** sharp runs the same in the worker and here; several images at once would only contend for the CPU. */
const OPTIMIZE_CONCURRENCY = 2;

async function optimizeOne(test: InspectTest, image: ImageTestResult['images'][number], displayWidth: number | undefined): Promise<OptimizedImage> {
  const base = { id: objectId(), original_image_id: image.id, image_url: image.url, load_time_ms: null };
  const failed = (error_message: string): OptimizedImage => ({ ...base, optimized_file_size: '0', optimized_format: '', optimized_mime_type: '', status: 'Error', error_message, original_file_size: '0', saved_bytes: 0 });
  const original = await getBytes(originalKey(test, image.id));
  if (!original) return failed('The image could not be read when the test ran, so there is nothing to optimize');
  // sharp is loaded only when an image is optimised (a side bundle in Lambda, lib/side-bundles.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { optimizeImage } = require('./image-optimizer') as typeof import('./image-optimizer');
  const outcome = await optimizeImage(original.bytes, { displayWidth });
  if ('error' in outcome) return failed(outcome.error);
  await putBytes(optimizedKey(test, image.id), outcome.bytes, outcome.mimeType);
  return {
    ...base,
    optimized_file_size: String(outcome.bytes.length),
    optimized_format: outcome.format.toUpperCase(),
    optimized_mime_type: outcome.mimeType,
    status: COMPLETE,
    error_message: null,
    original_file_size: String(original.bytes.length),
    saved_bytes: outcome.saved,
  };
}

/** Why each image could not be optimized, the first few of them. */
function refusalOf(failed: readonly OptimizedImage[]): string {
  const SHOWN = 5;
  // Named as the email names it; by its id only when it has no address.
  const reasons = failed.slice(0, SHOWN).map((o) => `Image ${o.image_url || o.original_image_id} cannot be optimized: ${o.error_message}`);
  return `${reasons.join('; ')}${failed.length > SHOWN ? `; and ${failed.length - SHOWN} more` : ''}`;
}

/**
 * Optimises every image of a finished test, or one: the bytes kept when the test ran, never fetched
 * again (the site may have changed, and a second fetch would be a second request in the user's name).
 */
export async function optimizeTestImages(test: InspectTest, onlyImageId?: string): Promise<StoredOptimization> {
  if (test.status === PROCESSING) throw new BadRequest('The test is still processing; optimize its images once it is complete');
  const result = await readResult<ImageTestResult & { declaredWidths?: Record<string, number> }>(test, test.run);
  const images = (result?.images ?? []).filter((image) => onlyImageId === undefined || image.id === onlyImageId);
  if (onlyImageId !== undefined && !images.length) throw new NotFound(`Image ${onlyImageId} is not part of test ${test.id}`);
  const done = await mapLimit(images, OPTIMIZE_CONCURRENCY, (image) => optimizeOne(test, image, result?.declaredWidths?.[image.id]));
  // Nothing could be optimized (the one image asked for, or every one): a refusal that says why, and nothing recorded.
  if (done.length && done.every((o) => o.status === 'Error')) throw new BadRequest(refusalOf(done));
  const previous = test.meta?.['optimization'] as StoredOptimization | undefined;
  const optimization: StoredOptimization = { id: previous?.id ?? objectId(), images: { ...previous?.images, ...Object.fromEntries(done.map((o) => [o.original_image_id, o])) } };
  await updateTestMeta(test, { ...test.meta, optimization });
  return optimization;
}

/** The ImageOptimization object, each optimised image with the URL this API serves it from. */
export function optimizationJson(optimization: StoredOptimization, baseUrl: string, test: Pick<InspectTest, 'id'>) {
  return {
    id: optimization.id,
    error_message: null,
    optimized_images: Object.values(optimization.images).map((image) => ({
      ...image,
      optimized_url: image.status === COMPLETE ? `${baseUrl}/v1/inspect/images/${test.id}/optimized/${image.original_image_id}` : null,
    })),
  };
}
