import { logger } from '../platform/logger';
import { abandonUnsent } from './send-worker';

/** What the scheduled-delivery workflow passes when it could not queue a message's send job. */
export interface UndeliveredInput {
  storageKey: string;
  /** The error Step Functions caught (its Error and Cause). */
  error?: { Error?: string; Cause?: string };
}

/**
 * The scheduled-delivery workflow's last resort (lib/workflows/scheduled-delivery.asl.json): its
 * message's send job could not be put on the send queue even after retrying for hours, so each
 * recipient not already sent gets a final failed event rather than none.
 */
export async function handler(input: UndeliveredInput): Promise<{ failed: number }> {
  if (!input || typeof input.storageKey !== 'string') throw new Error('storageKey is required');
  const { failed, busyUntil } = await abandonUnsent(input.storageKey, 'The scheduled message could not be queued for sending');
  // A send job did reach the queue after all and holds some recipients: the workflow retries this task.
  if (busyUntil !== undefined) throw new Error(`recipients of ${input.storageKey} are being sent; retry after ${new Date(busyUntil).toISOString()}`);
  logger.error('scheduled message not queued; unsent recipients failed', { storageKey: input.storageKey, failed, error: input.error?.Error });
  return { failed };
}
