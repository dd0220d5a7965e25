import { webhookAddressPolicy } from '../../webhooks/url-policy';
import { htmlOfStoredSource } from '../common/fetch-html';
import { putBytes } from '../common/inspect-store';
import { mapLimit } from '../../platform/concurrency';
import type { TestRunner } from '../common/run-outcome';
import { FetchError, fetchOnce, followRedirects } from '../common/safe-fetch';
import type { StoredSource } from '../common/source-input';
import { extractImages } from './image-extractor';
import { checkImages, type FetchedImage } from './image-run';
import { COMPLETE, imageSummary, MAX_IMAGE_BYTES, MAX_IMAGES, originalKey, type ImageTestResult } from './image-test';

/** What an image test stores as its input: image URLs, or the email to take them from. */
export type ImageTestInput = { links: string[] } | StoredSource;

const MAX_REDIRECTS = 5;
const FETCH_TIMEOUT_MS = 10_000;

/** An image by URL through the SSRF-safe client, redirects followed hop by hop (each hop checked). */
async function fetchImage(url: string): Promise<FetchedImage> {
  const started = Date.now();
  try {
    const final = await followRedirects(url, MAX_REDIRECTS, (target) => fetchOnce(target, { method: 'GET', timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_IMAGE_BYTES, policy: webhookAddressPolicy(), readBody: true }));
    if (!final) return { status: 0, loadTimeMs: Date.now() - started, error: `more than ${MAX_REDIRECTS} redirects` };
    const { outcome } = final;
    if (outcome.truncated) return { status: outcome.status, loadTimeMs: Date.now() - started, error: `larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB, the most read of one image` };
    return { status: outcome.status, bytes: outcome.status >= 200 && outcome.status < 300 ? outcome.body : undefined, loadTimeMs: Date.now() - started };
  } catch (error) {
    return { status: 0, loadTimeMs: Date.now() - started, error: error instanceof FetchError ? error.message : (error as Error).message };
  }
}

/**
 * One run: every image fetched once, analysed with sharp, its bytes kept beside the test so that
 * optimising later works on exactly what was checked.
 */
export const runImageTest: TestRunner = async (test, input, job) => {
  const stored = input as ImageTestInput;
  const refs = 'links' in stored ? stored.links : extractImages(await htmlOfStoredSource(stored)).slice(0, MAX_IMAGES);
  const run = await checkImages(refs, fetchImage);
  await mapLimit([...run.bytes], 8, ([id, bytes]) => putBytes(originalKey({ ...test, kind: job.kind }, id), bytes, 'application/octet-stream'));
  const result: ImageTestResult & { declaredWidths: Record<string, number> } = { images: run.images, total_load_time_ms: run.total_load_time_ms, declaredWidths: run.declaredWidths };
  return { status: COMPLETE, result, summary: imageSummary(result), usage: { metric: 'image_validation', failed: false } };
};
