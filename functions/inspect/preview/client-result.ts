import { clientInfoOf } from './catalog';
import type { PreviewClientState, PreviewTest } from './preview-store';
import { screenshotsFor, type ScreenshotName } from './screenshots';

/** Where a screenshot is served: the authenticated API path, or a share's public one. */
export type ScreenshotUrl = (clientId: string, name: ScreenshotName) => string;

/**
 * A client's result as contract §5.6 shows it (`display_name`, `screenshots`, thumbnails,
 * `status_details`), with `fidelity` and `applied` added. Screenshot URLs are there before the
 * images are: fetching one too early answers 425 with Retry-After.
 */
export function clientResultJson(test: Pick<PreviewTest, 'imageBlocking'>, state: PreviewClientState, urlOf: ScreenshotUrl) {
  const client = clientInfoOf(state);
  const names = screenshotsFor(client, test.imageBlocking);
  const screenshots: Record<string, string> = {};
  for (const name of names) if (name !== 'thumbnail' && name !== 'full_thumbnail') screenshots[name] = urlOf(state.clientId, name);
  return {
    id: client.id,
    display_name: `${client.client} (${client.os})`,
    client: client.client,
    os: client.os,
    category: client.category,
    browser: client.browser,
    screenshots,
    thumbnail: urlOf(state.clientId, 'thumbnail'),
    full_thumbnail: urlOf(state.clientId, 'full_thumbnail'),
    status: state.status,
    status_details: {
      submitted: state.submitted,
      completed: state.completed ?? null,
      attempts: state.attempts,
      bounce_code: state.bounceCode ?? '',
      bounce_message: state.bounceMessage ?? '',
    },
    fidelity: client.fidelity,
    applied: state.applied ?? [],
  };
}
