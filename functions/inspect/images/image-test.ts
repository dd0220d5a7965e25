import { testObjectKey, type InspectTest } from '../common/inspect-store';
import type { ImageResult } from './image-analyzer';

/** Image tests end `Complete` (contract §0: the upload and html-validate samples say so; GET's `Completed` conflicts). */
export const COMPLETE = 'Complete';
/** The most bytes read of one image (contract §6.1), and the most images one test checks. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_IMAGES = 500;

/** What a finished image test stores as its result. */
export interface ImageTestResult {
  images: ImageResult[];
  total_load_time_ms: number | null;
}

/** The bytes of each checked image, kept for optimisation under the test's prefix. */
export const originalKey = (test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, imageId: string) => testObjectKey(test, `images/${imageId}`);
export const optimizedKey = (test: Pick<InspectTest, 'accountId' | 'kind' | 'id'>, imageId: string) => testObjectKey(test, `optimized/${imageId}`);

export function imageSummary(result: ImageTestResult): Record<string, number> {
  return {
    images: result.images.length,
    invalid: result.images.filter((image) => image.status === 'Invalid').length,
    errors: result.images.filter((image) => image.status === 'Error').length,
  };
}
