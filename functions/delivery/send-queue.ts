import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SendJob } from '../messages/accept';
import { sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';

/** SQS delays a message by at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

/** The delay before a send job's next attempt after SES asked for a retry: doubling, at most 15 minutes. */
export const retryDelay = (attempt: number) => Math.min(900, env().SEND_RETRY_BASE_SECONDS * 2 ** attempt);

/** Puts a send job back on the send queue, visible after `delaySeconds` (0 to 15 minutes). */
export async function requeue(job: SendJob, delaySeconds: number): Promise<void> {
  const DelaySeconds = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)));
  await sqsClient().send(new SendMessageCommand({ QueueUrl: env().SEND_QUEUE_URL!, MessageBody: JSON.stringify(job), DelaySeconds }));
}

/** The job's next attempt, after its retry delay. */
export const retryLater = (job: SendJob) => requeue({ ...job, attempt: job.attempt + 1, firstAttemptAt: job.firstAttemptAt ?? Date.now() }, retryDelay(job.attempt));
