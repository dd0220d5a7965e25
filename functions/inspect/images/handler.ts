import { z } from 'zod/v3';
import { BadRequest, NotFound, PayloadTooLarge } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { RawReply } from '../../platform/http/reply';
import { schema } from '../../platform/http/params';
import { processingReply, selfLink, skipLimitPaging } from '../common/envelope';
import { createTest, deleteTest, findTest, getBytes, listTests, PROCESSING, putBytes, readResult, recordFinishedTest, rerunTest, type InspectTest } from '../common/inspect-store';
import { listPageInput } from '../common/list-query';
import { checkHttpUrl, htmlSourceFields, storedSourceOf } from '../common/source-input';
import { countUsage } from '../common/usage';
import { COMPLETE, MAX_IMAGE_BYTES, MAX_IMAGES, imageSummary, optimizedKey, originalKey, type ImageTestResult } from './image-test';
import { optimizeTestImages, optimizationJson, type StoredOptimization } from './optimization';
import { imageRoutes } from './routes';

const BASE = '/v1/inspect/images';

const idInput = schema(() => z.object({ id: z.string() }));
const imageIdInput = schema(() => z.object({ id: z.string(), image_id: z.string() }));
const createInput = schema(() => z.object({ links: z.array(z.string()).min(1, { message: 'name at least one image URL' }) }));
const htmlInput = schema(() => z.object(htmlSourceFields()));
const uploadInput = schema(() => z.object({ image: z.string().optional() }));
const listInput = schema(listPageInput);

async function requireTest(accountId: string, id: string): Promise<InspectTest> {
  const test = await findTest(accountId, 'images', id);
  if (!test) throw new NotFound(`Image validation test with id ${id} not found`);
  return test;
}

/** The ImageTest of contract §2: results once done, and the latest optimisation when there is one. */
async function imageTestJson(test: InspectTest, baseUrl: string) {
  const result = test.status === PROCESSING ? undefined : await readResult<ImageTestResult>(test, test.run);
  const optimization = test.meta?.['optimization'] as StoredOptimization | undefined;
  return {
    id: test.id,
    links: selfLink(BASE, test.id),
    total_load_time_ms: result?.total_load_time_ms ?? null,
    images: result?.images ?? [],
    ...(optimization ? { image_optimization: optimizationJson(optimization, baseUrl, test) } : {}),
  };
}

/** The uploaded image: a multipart part `image`, or JSON `{"image": "<base64>"}` (contract §0). */
function uploadedImage(files: { field: string; content: Buffer }[], base64: string | undefined): Buffer {
  const part = files.find((f) => f.field === 'image') ?? files[0];
  let bytes: Buffer | undefined = part?.content;
  if (!bytes && base64) {
    const compact = base64.replace(/^data:[^,]*,/, '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new BadRequest("Invalid parameter 'image': not base64");
    bytes = Buffer.from(compact, 'base64');
  }
  if (!bytes?.length) throw new BadRequest("Attach the image as a multipart file part named 'image', or send JSON {\"image\": \"<base64>\"}");
  if (bytes.length > MAX_IMAGE_BYTES) throw new PayloadTooLarge(`The image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB, the most a test reads`);
  return bytes;
}

export const handler = areaHandler(imageRoutes, {
  createImageTest: operation(createInput, async (req, input) => {
    if (input.links.length > MAX_IMAGES) throw new BadRequest(`A test checks at most ${MAX_IMAGES} images; ${input.links.length} were given`);
    input.links.forEach((url, i) => (url.startsWith('data:') ? url : checkHttpUrl(url, `links[${i}]`)));
    const test = await createTest(req.accountId, 'images', { links: input.links });
    return processingReply(BASE, test);
  }),

  createImageTestFromHtml: operation(htmlInput, async (req, input) => {
    const test = await createTest(req.accountId, 'images', await storedSourceOf(input));
    return processingReply(BASE, test);
  }),

  uploadImage: operation(uploadInput, async (req, input) => {
    const bytes = uploadedImage(req.files, input.image);
    // sharp is a side bundle's dependency (lib/side-bundles.ts): only uploads and optimisation load it here.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { analyzeUpload } = require('./image-upload') as typeof import('./image-upload');
    const { result, imageId } = await analyzeUpload(bytes);
    const test = await recordFinishedTest(req.accountId, 'images', COMPLETE, result, imageSummary(result));
    await putBytes(originalKey(test, imageId), bytes, 'application/octet-stream');
    await countUsage(req.accountId, 'image_validation', result.images.some((image) => image.status !== 'Valid'), `${test.id}:1`);
    return { meta: { status: COMPLETE }, items: await imageTestJson(test, req.baseUrl) };
  }),

  listImageTests: operation(listInput, async (req, input) => {
    const all = await listTests(req.accountId, 'images');
    const page = all.slice(input.skip, input.skip + input.limit);
    return {
      meta: { count: all.length },
      paging: skipLimitPaging(req.baseUrl, BASE, input.skip, input.limit, all.length),
      items: await Promise.all(page.map((test) => imageTestJson(test, req.baseUrl))),
    };
  }),

  getImageTest: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    return { meta: { status: test.status }, items: await imageTestJson(test, req.baseUrl) };
  }),

  reprocessImageTest: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    // The optimisation of the earlier run's images no longer matches the new results.
    return processingReply(BASE, await rerunTest(test, undefined, { optimization: undefined }));
  }),

  deleteImageTest: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    const result = test.status === PROCESSING ? undefined : await readResult<ImageTestResult>(test, test.run);
    const imageKeys = (result?.images ?? []).flatMap((image) => [originalKey(test, image.id), optimizedKey(test, image.id)]);
    await deleteTest(test, imageKeys);
    return { message: `Image validation test with test id ${input.id} has been successfully deleted.` };
  }),

  optimizeImages: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    const optimization = await optimizeTestImages(test);
    return { meta: { status: 'Completed' }, items: [optimizationJson(optimization, req.baseUrl, test)] };
  }),

  optimizeImage: operation(imageIdInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    const optimization = await optimizeTestImages(test, input.image_id);
    const json = optimizationJson(optimization, req.baseUrl, test);
    return { meta: { status: 'Completed' }, items: { ...json, optimized_images: json.optimized_images.filter((image) => image.original_image_id === input.image_id) } };
  }),

  downloadOptimizedImage: operation(imageIdInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    const optimized = (test.meta?.['optimization'] as StoredOptimization | undefined)?.images[input.image_id];
    const stored = optimized?.status === COMPLETE ? await getBytes(optimizedKey(test, input.image_id)) : undefined;
    if (!optimized || !stored) throw new NotFound(`No optimized image ${input.image_id} in test ${input.id}: optimize it first`);
    return new RawReply(200, stored.bytes, {
      'content-type': optimized.optimized_mime_type,
      'content-disposition': `attachment; filename="${input.image_id}.${optimized.optimized_format.toLowerCase()}"`,
    });
  }),
}, { onBehalfOf });
