import type { RaisedAlert } from './alert-message';
import type { AlertChannel } from './settings-store';
import { retryDelayMs } from '../../webhooks/delivery-job';

/**
 * One delivery of one alert to one setting, as a queue message. It carries the alert itself, so a
 * retry hours later says what the alert said; the setting is read again at each attempt, so a
 * setting deleted, disabled or given a new URL meanwhile is honoured.
 */
export interface AlertJob {
  alert: RaisedAlert;
  settingId: string;
  /** The setting's channel when the alert was raised: the history names it even once the setting is gone. */
  channel?: AlertChannel;
  /** Attempts made so far (0 for the first). */
  attempt: number;
  /** Epoch ms before which the job must not run: SQS delays stop at 15 minutes, the schedule does not. */
  notBefore?: number;
  /** Slack: the channels still owed the alert after an attempt that reached some of them. */
  channelIds?: string[];
  /** What the previous attempt got, for the reason a setting is disabled with. */
  lastOutcome?: string;
}

/** The waits after each failed attempt: 1m, 5m, 15m, 30m, 1h, 2h, 4h (7h51m in all), then the setting is disabled. */
export const ALERT_RETRY_SCHEDULE_SECONDS = [60, 300, 900, 1800, 3600, 7200, 14400] as const;

/** The wait after failed attempt `attempt` (0-based), scaled (tests), or undefined when the schedule is spent. */
export const alertRetryDelayMs = (attempt: number, scale: number) => retryDelayMs(attempt, scale, ALERT_RETRY_SCHEDULE_SECONDS);

// Long waits take several SQS hops, as webhook retries do.
export { hopDelaySeconds } from '../../webhooks/delivery-job';
