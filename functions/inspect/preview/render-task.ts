import { keys } from '../../data/db';
import { updateItemIf } from '../../data/store';
import { logger } from '../../platform/logger';
import { getBytes, putBytes } from '../common/inspect-store';
import { countUsage } from '../common/usage';
import { PREVIEW_CLIENTS } from './clients';
import { bounceClient, clientState, contentKey, findPreviewTest, MAX_ATTEMPTS, previewUsageRun, screenshotKey, type RenderItem } from './preview-store';
import { renderEmail } from './renderer';
import { rendersFor, thumbnailsOf } from './screenshots';
import { transformForClient } from './transforms/transform-for-client';
import { caughtMessage, type CaughtError } from './workflow-error';

/**
 * The preview workflow's task (lib/workflows/email-preview.asl.json), one client of one test per
 * call. `render`: transforms the email for the client, renders it in Chromium, stores the
 * screenshots and thumbnails, and records the client Complete; a failure is thrown so the
 * workflow retries it (each try is one attempt). `bounce`: the attempts are spent, so the client
 * is recorded Bounced with the last error. Both act only on the client's current run: a re-queue
 * or reprocess started since makes this call a no-op.
 */

export type RenderTaskEvent = { step: 'render'; item: RenderItem } | { step: 'bounce'; item: RenderItem; error?: CaughtError };

export class RenderFailed extends Error {
  override name = 'RenderFailed';
}

async function render(item: RenderItem): Promise<{ status: string }> {
  const state = await clientState(item.accountId, item.testId, item.clientId);
  if (!state || state.run !== item.run || state.status !== 'Processing') return { status: 'superseded' };
  const test = await findPreviewTest(item.accountId, item.testId);
  const client = PREVIEW_CLIENTS.get(item.clientId);
  if (!test || !client) return { status: 'superseded' };
  // Each try counts as an attempt and restarts the 3-minute clock (contract §5.4).
  const started = await updateItemIf(keys.previewClient(item.accountId, item.testId, item.clientId), { run: item.run, attempts: state.attempts }, { attempts: state.attempts + 1, submitted: Math.floor(Date.now() / 1000) });
  if (!started) return { status: 'superseded' };
  const html = (await getBytes(contentKey(item.accountId, item.testId)))?.bytes.toString('utf8');
  if (html === undefined) throw new RenderFailed('The test\'s HTML is gone from storage');

  const transformed = transformForClient(html, client);
  const names = rendersFor(client, test.imageBlocking);
  let cut = false;
  for (const name of names) {
    const shot = await renderEmail({ html: transformed.html, viewport: client.viewport, dark: client.dark, blockImages: name.endsWith('no_images'), landscape: name.startsWith('horizontal') });
    cut ||= shot.cut;
    await putBytes(screenshotKey(item, name), shot.png, 'image/png');
    if (name === 'default') {
      const thumbnails = await thumbnailsOf(shot.png);
      await putBytes(screenshotKey(item, 'thumbnail'), thumbnails.thumbnail, 'image/png');
      await putBytes(screenshotKey(item, 'full_thumbnail'), thumbnails.full_thumbnail, 'image/png');
    }
  }
  const applied = cut ? [...transformed.applied, 'screenshot cut at 16,000 pixels of height'] : transformed.applied;
  const done = await updateItemIf(
    keys.previewClient(item.accountId, item.testId, item.clientId),
    { run: item.run, status: 'Processing' },
    { status: 'Complete', completed: Math.floor(Date.now() / 1000), applied, screenshots: [...names, 'thumbnail', 'full_thumbnail'] },
  );
  if (done) await countUsage(item.accountId, 'email_preview', false, previewUsageRun(item));
  return { status: done ? 'Complete' : 'superseded' };
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
