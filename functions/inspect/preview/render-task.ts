import { updateItemIf } from '../../data/store';
import { logger } from '../../platform/logger';
import { putBytes } from '../common/inspect-store';
import { countUsage } from '../common/usage';
import { PREVIEW_CLIENTS } from './clients';
import { env } from '../../platform/env';
import { bounceClient, clientState, findPreviewTest, MAX_ATTEMPTS, previewUsageRun, readContent, screenshotKey, type PreviewClientState, type PreviewTest, type RenderItem, previewKeys } from './preview-store';
import { realClientTier } from './real-clients/real-client-tier';
import { renderEmail } from './renderer';
import { rendersFor } from './screenshots';
import { thumbnailsOf } from './thumbnails';
import { transformForClient } from './transforms/transform-for-client';
import { caughtMessage, type CaughtError } from './workflow-error';

/**
 * The preview workflow's task (lib/workflows/email-preview.asl.json), one client of one test per
 * call. `render`: for an emulated client, transforms the email for it and renders it in Chromium;
 * for a real-client tier's client, waits for the service's result and copies its screenshots;
 * either way stores the screenshots and thumbnails and records the client Complete (or Bounced,
 * when the service bounced it). A failure is thrown so the workflow retries it (each try is one
 * attempt). `bounce`: the attempts are spent, so the client is recorded Bounced with the last
 * error. Both act only on the client's current run: a re-queue or reprocess started since makes
 * this call a no-op.
 */

export type RenderTaskEvent = { step: 'render'; item: RenderItem } | { step: 'bounce'; item: RenderItem; error?: CaughtError };

class RenderFailed extends Error {
  override name = 'RenderFailed';
}

async function render(item: RenderItem): Promise<{ status: string }> {
  const state = await clientState(item.accountId, item.testId, item.clientId);
  if (!state || state.run !== item.run || state.status !== 'Processing') return { status: 'superseded' };
  const test = await findPreviewTest(item.accountId, item.testId);
  if (!test) return { status: 'superseded' };
  // Each try counts as an attempt and restarts the 3-minute clock (contract §5.4).
  const started = await updateItemIf(previewKeys.previewClient(item.accountId, item.testId, item.clientId), { run: item.run, attempts: state.attempts }, { attempts: state.attempts + 1, submitted: Math.floor(Date.now() / 1000) });
  if (!started) return { status: 'superseded' };
  const outcome = state.real ? await fromRealClient(test, state) : await renderEmulated(test, item);
  if (outcome.bounced) {
    const bounced = await bounceClient(item, outcome.bounced.code, outcome.bounced.message);
    return { status: bounced ? 'Bounced' : 'superseded' };
  }
  const done = await updateItemIf(
    previewKeys.previewClient(item.accountId, item.testId, item.clientId),
    { run: item.run, status: 'Processing' },
    { status: 'Complete', completed: Math.floor(Date.now() / 1000), applied: outcome.applied, screenshots: outcome.screenshots },
  );
  if (done) await countUsage(item.accountId, 'email_preview', false, previewUsageRun(item));
  return { status: done ? 'Complete' : 'superseded' };
}

interface Outcome {
  screenshots: string[];
  applied: string[];
  bounced?: { code: string; message: string };
}

/** Stores a client's default screenshot with the two thumbnails made from it. */
async function storeDefault(item: RenderItem, png: Buffer): Promise<void> {
  await putBytes(screenshotKey(item, 'default'), png, 'image/png');
  const thumbnails = await thumbnailsOf(png);
  await putBytes(screenshotKey(item, 'thumbnail'), thumbnails.thumbnail, 'image/png');
  await putBytes(screenshotKey(item, 'full_thumbnail'), thumbnails.full_thumbnail, 'image/png');
}

/** An emulated client: the email transformed as the client would, rendered in Chromium per screenshot. */
async function renderEmulated(test: PreviewTest, item: RenderItem): Promise<Outcome> {
  const client = PREVIEW_CLIENTS.get(item.clientId);
  if (!client) throw new RenderFailed(`Client ${item.clientId} is no longer in the catalog`);
  const html = await readContent(item.accountId, item.testId);
  if (html === undefined) throw new RenderFailed("The test's HTML is gone from storage");
  const transformed = transformForClient(html, client);
  const names = rendersFor(client, test.imageBlocking);
  let cut = false;
  for (const name of names) {
    const shot = await renderEmail({ html: transformed.html, viewport: client.viewport, dark: client.dark, blockImages: name.endsWith('no_images'), landscape: name.startsWith('horizontal') });
    cut ||= shot.cut;
    if (name === 'default') await storeDefault(item, shot.png);
    else await putBytes(screenshotKey(item, name), shot.png, 'image/png');
  }
  return { screenshots: [...names, 'thumbnail', 'full_thumbnail'], applied: cut ? [...transformed.applied, 'screenshot cut at 16,000 pixels of height'] : transformed.applied };
}

/** How long one try waits for the real-client service before the workflow tries again. */
const REAL_WAIT_MS = 120_000;

/**
 * A real client: the service's result for it, asked every PREVIEW_REAL_POLL_SECONDS until it is
 * done (or this try's wait is over: the workflow tries again); its screenshots are copied into our
 * bucket, so they are served, exported and shared as ours are, and the thumbnails made as ours.
 */
async function fromRealClient(test: PreviewTest, state: PreviewClientState): Promise<Outcome> {
  const tier = await realClientTier();
  if (!tier || !test.realTest || tier.name !== test.realTest.service) throw new RenderFailed('The real-client service of this test is not configured');
  const deadline = Date.now() + REAL_WAIT_MS;
  for (;;) {
    const result = (await tier.results(test.realTest.remoteId))[state.clientId];
    if (result?.status === 'Bounced') return { screenshots: [], applied: [], bounced: { code: result.bounceCode ?? 'bounced', message: result.bounceMessage ?? `${tier.name} could not screenshot this client` } };
    if (result?.status === 'Complete' && result.screenshots['default']) {
      const names = rendersFor(state.real!, test.imageBlocking).filter((name) => result.screenshots[name]);
      for (const name of names) {
        const png = await tier.download(result.screenshots[name]!);
        if (name === 'default') await storeDefault(state, png);
        else await putBytes(screenshotKey(state, name), png, 'image/png');
      }
      return { screenshots: [...names, 'thumbnail', 'full_thumbnail'], applied: [] };
    }
    if (Date.now() > deadline) throw new RenderFailed(`${tier.name} has not finished this client yet`);
    await new Promise((resolve) => setTimeout(resolve, env().PREVIEW_REAL_POLL_SECONDS * 1000));
  }
}

async function bounce(item: RenderItem, error: CaughtError | undefined): Promise<{ status: string }> {
  const cause = caughtMessage(error);
  const message = `Rendering failed after ${MAX_ATTEMPTS} attempts: ${cause}`;
  const bounced = await bounceClient(item, 'render_failed', message);
  if (bounced) logger.warn('preview client bounced', { testId: item.testId, clientId: item.clientId, run: item.run, cause });
  return { status: bounced ? 'Bounced' : 'superseded' };
}

export async function handler(event: RenderTaskEvent): Promise<{ status: string }> {
  return event.step === 'render' ? render(event.item) : bounce(event.item, event.error);
}
