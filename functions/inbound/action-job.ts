import { createHash } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { hopDelaySeconds } from '../webhooks/delivery-job';

/**
 * One route action on one received message, and the queue message that carries it. It names the
 * stored message (its storage key) rather than carrying it: the worker parses the MIME when it
 * posts, so a job stays small whatever the message's size.
 */
export interface ActionJob {
  /** Stable per (message, route, recipient, action): the same whenever the receipt is replayed. */
  deliveryId: string;
  accountId: string;
  domain: string;
  storageKey: string;
  recipient: string;
  route: { id: string; expression: string };
  /** forward("https://..."), store(notify="https://...") or forward("someone@example.com"). */
  kind: 'forward-url' | 'notify' | 'forward-address';
  target: string;
  /** Attempts so far (0 for the first), on the webhook schedule. */
  attempt: number;
  notBefore?: number;
  firstAttemptAt?: number;
}

export function stableId(...parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 32);
}

export async function enqueueAction(job: ActionJob): Promise<void> {
  const queueUrl = env().INBOUND_ACTION_QUEUE_URL;
  if (!queueUrl) throw new Error('INBOUND_ACTION_QUEUE_URL is not configured');
  const delay = job.notBefore === undefined ? 0 : hopDelaySeconds(job.notBefore);
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job), DelaySeconds: delay }));
}
