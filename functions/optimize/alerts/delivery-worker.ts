import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { getItem, putItem, updateItemIf } from '../../data/store';
import { TABLE_KEYS } from '../../data/table';
import { env } from '../../platform/env';
import { logger } from '../../platform/logger';
import { enqueueAlertJob } from './alert-queue';
import { deliverTo, type Attempt } from './channels';
import { alertRetryDelayMs, type AlertJob } from './delivery-job';
import { recordDelivery, type DeliveryState } from './history';
import { disableAlertSetting, disableSlackChannels, findAlertSetting, type AlertChannel, type AlertSettingItem, alertKeys } from './settings-store';

/**
 * Consumes the alerts queue: each message is one attempt at one alert for one setting (webhook,
 * email or Slack). A failed attempt queues the next on the schedule (1m ... 4h); once the schedule
 * is spent, or at once when retrying cannot help, the setting is disabled with the reason. Retries
 * are new messages, so the queue's own redelivery (and its DLQ) is left for failures of the
 * worker itself: a table or queue call that failed.
 */

/** A claim outlives any copy of the message (SQS's at-least-once) by far. */
const CLAIM_SECONDS = 2 * 86_400;
/** The claim's owner once its message has handled the attempt: a redelivery then does nothing. */
const HANDLED = 'handled';

const claimKey = (job: AlertJob) => alertKeys.alertDelivery(job.alert.accountId, job.alert.id, job.settingId, job.attempt);

/**
 * Each attempt is claimed for the queue message carrying it: a copy of the message (a second
 * raiseAlert of the same transition racing the first, SQS's own duplicates) finds the claim taken
 * and is dropped, so an email is never sent twice. The same message redelivered after a failure
 * finds its own claim and goes on, unless it had already handled the attempt.
 */
async function claim(job: AlertJob, messageId: string): Promise<boolean> {
  const key = claimKey(job);
  if (await putItem(key, { owner: messageId, [TABLE_KEYS.ttl]: Math.ceil(Date.now() / 1000) + CLAIM_SECONDS }, { ifAbsent: true })) return true;
  const current = await getItem<{ owner: string }>(key, { consistent: true });
  return current?.owner === messageId;
}

async function markHandled(job: AlertJob, messageId: string): Promise<void> {
  await updateItemIf(claimKey(job), { owner: messageId }, { owner: HANDLED });
}

/** Where this job's delivery stands, in the account's alert history. */
const record = (job: AlertJob, channel: AlertChannel, state: DeliveryState, lastError?: string, nextAttemptAt?: number) =>
  recordDelivery(job.alert, job.settingId, { channel, state, attempts: job.attempt + 1, lastError, nextAttemptAt: nextAttemptAt === undefined ? undefined : new Date(nextAttemptAt).toISOString() });

async function retryOrDisable(job: AlertJob, setting: AlertSettingItem, why: string, channelIds?: string[]): Promise<void> {
  const delay = alertRetryDelayMs(job.attempt, env().ALERT_RETRY_SCALE);
  if (delay === undefined) {
    await disableAlertSetting(job.alert.accountId, setting, `Delivery failed ${job.attempt + 1} times over the retry schedule; last: ${why}`);
    logger.warn('alert setting disabled: retries spent', { accountId: job.alert.accountId, settingId: setting.id, channel: setting.channel, why });
    return record(job, setting.channel, 'failed', why);
  }
  const notBefore = Date.now() + delay;
  await enqueueAlertJob({ ...job, attempt: job.attempt + 1, notBefore, channelIds, lastOutcome: why });
  await record(job, setting.channel, 'retrying', why, notBefore);
}

async function settle(job: AlertJob, setting: AlertSettingItem, attempt: Attempt): Promise<void> {
  const { accountId } = job.alert;
  switch (attempt.outcome) {
    case 'delivered':
      return record(job, setting.channel, 'delivered');
    case 'retry':
      return retryOrDisable(job, setting, attempt.why, attempt.channelIds);
    case 'give-up':
      await disableAlertSetting(accountId, setting, attempt.why);
      logger.warn('alert setting disabled', { accountId, settingId: setting.id, channel: setting.channel, why: attempt.why });
      return record(job, setting.channel, 'failed', attempt.why);
    case 'partial': {
      await disableSlackChannels(accountId, setting.id, attempt.refusedChannels);
      const disabled = { ...setting.settings.disabled_channel_ids, ...attempt.refusedChannels };
      const left = (setting.settings.channel_ids ?? []).filter((id) => !disabled[id]);
      const refusedList = Object.entries(attempt.refusedChannels).map(([id, code]) => `${id} (${code})`).join(', ');
      if (!left.length) {
        const current = await findAlertSetting(accountId, setting.id);
        if (current) await disableAlertSetting(accountId, current, `Slack refused every channel: ${refusedList}`);
        return record(job, setting.channel, 'failed', `Slack refused every channel: ${refusedList}`);
      }
      if (attempt.retryChannelIds) return retryOrDisable(job, setting, attempt.why ?? 'Slack did not answer', attempt.retryChannelIds);
      return record(job, setting.channel, 'partial', `Slack refused ${refusedList}`);
    }
  }
}

async function run(job: AlertJob, messageId: string): Promise<void> {
  if (!(await claim(job, messageId))) return;
  const setting = await findAlertSetting(job.alert.accountId, job.settingId);
  // Deleted or disabled since the alert was raised: nothing is owed to it any more.
  if (setting && !setting.disabledAt) await settle(job, setting, await deliverTo(job.alert.accountId, setting, job.alert, job.channelIds));
  else {
    const channel = setting?.channel ?? job.channel;
    if (channel) await recordDelivery(job.alert, job.settingId, { channel, state: 'skipped', attempts: job.attempt, lastError: setting ? `the alert was disabled: ${setting.disabledReason ?? ''}` : 'the alert was deleted' });
  }
  await markHandled(job, messageId);
}

function jobOf(record: SQSRecord): AlertJob | undefined {
  try {
    return JSON.parse(record.body) as AlertJob;
  } catch {
    // The queue only ever holds what raiseAlert and this worker wrote.
    logger.error('unreadable alert delivery message dropped', { messageId: record.messageId });
    return undefined;
  }
}

/** The batch's messages at once: those not due yet take another hop, the due ones are delivered. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const records = event.Records as SQSRecord[];
  const now = Date.now();
  const settled = await Promise.allSettled(
    records.map(async (record) => {
      const job = jobOf(record);
      if (!job) return;
      if (job.notBefore !== undefined && job.notBefore > now) return enqueueAlertJob(job);
      return run(job, record.messageId);
    }),
  );
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    // Name and message only: an error's own fields could carry a receiver's URL or a token.
    const error = result.reason as Error;
    logger.error('alert delivery failed; the queue will redeliver it', { messageId: records[i]!.messageId, errorName: error.name, errorMessage: error.message });
    failures.push({ itemIdentifier: records[i]!.messageId });
  });
  return { batchItemFailures: failures };
}
