import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { hopDelaySeconds, type AlertJob } from './delivery-job';

/** Puts a delivery on the alerts queue, delayed (in hops of at most 15 minutes) until its notBefore. */
export async function enqueueAlertJob(job: AlertJob): Promise<void> {
  const queueUrl = env().ALERT_QUEUE_URL;
  if (!queueUrl) throw new Error('ALERT_QUEUE_URL is not configured: alerts cannot be delivered');
  const delay = job.notBefore === undefined ? 0 : hopDelaySeconds(job.notBefore);
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job), DelaySeconds: delay }));
}
