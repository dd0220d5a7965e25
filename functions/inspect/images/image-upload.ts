import { checkImages } from './image-run';
import type { ImageTestResult } from './image-test';

/**
 * An uploaded image, checked within the request (contract §2: the upload answers with the full
 * result). In Lambda this module is a side bundle (lib/side-bundles.ts): it brings sharp.
 */
export async function analyzeUpload(bytes: Buffer): Promise<{ result: ImageTestResult; imageId: string }> {
  const run = await checkImages(['upload'], () => Promise.resolve({ status: 200, bytes, loadTimeMs: 0 }));
  const image = run.images[0]!;
  // Nothing was fetched: a load time of 0 would read as measured.
  return { result: { images: [image], total_load_time_ms: null }, imageId: image.id };
}
