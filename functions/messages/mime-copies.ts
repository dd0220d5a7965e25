import { encodeWords } from 'nodemailer/lib/mime-funcs';
import type { TrackingClaims } from '../tracking/tokens';
import { applyTracking, type TrackingPlan } from '../tracking/rewrite';
import { substitute } from './batch';
import type { TextKind } from './mime-rewriter';
import { formatMailbox, type Mailbox } from './recipients';

type Rewriter = typeof import('./mime-rewriter');

/** The MIME rewriter, loaded on the first MIME send that needs it, not with the Lambda (lib/side-bundles.ts). */
export function mimeRewriter(): Rewriter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  return require('./mime-rewriter') as Rewriter;
}

/** What makes one recipient's copy of a caller-built message differ from the message. */
export interface CopyPlan {
  /** A batch send: the copy is addressed to this recipient alone, `%recipient.*%` filled from `values`. */
  batch?: { to: Mailbox; values: Record<string, unknown> };
  /** Tracking, as the HTTP messages path applies it: links, the open pixel, unsubscribe footer and headers. */
  tracking?: { plan: TrackingPlan; base: string | undefined; claims: Omit<TrackingClaims, 'u' | 's'> };
}

/**
 * One recipient's copy of a MIME message, made as the HTTP `messages` path makes the copies it
 * composes: a batch copy shows only its recipient in To and has its values in the Subject and
 * the inline bodies; a tracked copy has its own click links and open pixel, and the one-click
 * List-Unsubscribe headers at the top.
 */
export async function recipientCopy(mime: Buffer, copy: CopyPlan): Promise<Buffer> {
  const { batch, tracking } = copy;
  const fill = (text: string) => (batch ? substitute(text, batch.values) : text);
  const rewritten = await mimeRewriter().rewriteMime(mime, {
    kinds: new Set<TextKind>(['html', 'text']),
    body: async (kind, text) => (tracking ? ((await applyTracking(tracking.plan, tracking.base, tracking.claims, { [kind]: fill(text) }))[kind] ?? text) : fill(text)),
    headers: (headers) => {
      if (!batch) return;
      headers.update('To', encodeWords(formatMailbox(batch.to), 'Q', 52));
      const subject = headers.getFirst('Subject');
      if (subject) headers.update('Subject', encodeWords(fill(subject), 'Q', 52));
    },
  });
  if (!tracking) return rewritten;
  const { headers } = await applyTracking(tracking.plan, tracking.base, tracking.claims, {});
  if (!headers.length) return rewritten;
  return Buffer.concat([Buffer.from(headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')), rewritten]);
}
