import type { TrackingClaims } from '../tracking/tokens';
import { applyTracking, type TrackingPlan } from '../tracking/rewrite';
import type { TextKind } from './mime-rewriter';

type Rewriter = typeof import('./mime-rewriter');

/**
 * One recipient's copy of a caller-built message with the domain's tracking applied, as the HTTP
 * `messages` path applies it to the message it composes: links through the click endpoint, the
 * open pixel, the unsubscribe footer and placeholders in its text bodies, and the one-click
 * List-Unsubscribe headers at the top.
 */
export async function trackMime(mime: Buffer, plan: TrackingPlan, base: string | undefined, claims: Omit<TrackingClaims, 'u' | 's'>): Promise<Buffer> {
  // Loaded on the first tracked MIME send, not with the Lambda (lib/side-bundles.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  const { rewriteTextParts } = require('./mime-rewriter') as Rewriter;
  const kinds = new Set<TextKind>(['html', 'text']);
  const tracked = await rewriteTextParts(mime, kinds, async (kind, body) => (await applyTracking(plan, base, claims, { [kind]: body }))[kind] ?? body);
  const { headers } = await applyTracking(plan, base, claims, {});
  if (!headers.length) return tracked;
  return Buffer.concat([Buffer.from(headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')), tracked]);
}
