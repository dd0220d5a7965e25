import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { s3Client, sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';

/**
 * The list queue's jobs, consumed by expansion-worker.ts. A list post is expanded one page of
 * members per job; a bulk upload of more than 100 members is written one slice per job.
 */
export type ListJob =
  | { kind: 'expand'; postId: string; /** The last member address of the page before; absent for the first page. */ after?: string }
  | { kind: 'import'; accountId: string; taskId: string; offset: number }
  /** A deleted list's members, a page a job until none is left. */
  | { kind: 'purge'; accountId: string; listId: string };

/** SQS delays a message by at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

export async function queueListJob(job: ListJob, delaySeconds = 0): Promise<void> {
  const queueUrl = env().LIST_QUEUE_URL;
  if (!queueUrl) throw new Error('LIST_QUEUE_URL is not configured');
  const DelaySeconds = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)));
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job), DelaySeconds }));
}

/**
 * What a job works from but a queue message cannot hold (a post's content with attachments, an
 * upload's members): a JSON object in the messages bucket, beside the stored messages.
 */
export const jobObjectKey = (accountId: string, kind: 'list-posts' | 'list-tasks', id: string) => `${accountId}/${kind}/${id}.json`;

export async function putJobObject(key: string, value: unknown): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: env().MESSAGES_BUCKET, Key: key, Body: JSON.stringify(value), ContentType: 'application/json' }));
}

export async function getJobObject<T>(key: string): Promise<T> {
  const out = await s3Client().send(new GetObjectCommand({ Bucket: env().MESSAGES_BUCKET, Key: key }));
  return JSON.parse(await out.Body!.transformToString('utf8')) as T;
}
