import { defineEntity } from '../data/key-registry';
import { addToCounter, deleteItem, getItem, putItem, queryAll, updateItem, type Key } from '../data/store';
import { logger } from '../platform/logger';
import { setSesWarmup } from './ses-resources';

/**
 * IP warm-up: a new dedicated address earns its reputation by sending a little more each day. The
 * plan is a list of stages, each a daily volume; a stage lasts at least a day and ends once its
 * volume has been sent from the address; within a stage the address sends at most a tenth of the
 * stage's volume per hour (so the day's volume takes ten hours or more, never one burst). Mail
 * beyond the hour's limit waits for the next hour (functions/delivery/ses-chunks.ts); it is never sent from the
 * warming address over its limit, nor moved to another address behind the user's back.
 *
 * SES is told the plan's progress (PutDedicatedIpWarmupAttributes, the percentage of the plan
 * done), so its own view of the address agrees.
 */
const WARMUP_PLAN: readonly number[] = [200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 40_000, 70_000, 100_000, 150_000, 250_000, 400_000, 600_000, 1_000_000];
export const MIN_STAGE_MS = 24 * 3600_000;
const HOURLY_SHARE = 10;
const HOUR_MS = 3600_000;

export const warmupKeys = defineEntity(
  'ip warmups',
  {
    ipWarmup: { what: "a dedicated IP's warm-up plan, region-wide like the IPs", pk: 'SYSTEM#ip-warmups', sk: '<ip>', key: (ip = ''): Key => ({ pk: 'SYSTEM#ip-warmups', sk: ip }) },
    ipHourlySends: {
      what: 'how many recipients a warming IP was given in one hour (`2026-11-26T09:00:00.000Z`)',
      pk: 'SYSTEM#ip-sends#<ip>',
      sk: '<hour>',
      key: (ip: string, hour: string): Key => ({ pk: `SYSTEM#ip-sends#${ip}`, sk: hour }),
    },
  },
  [{ what: 'the warming IPs', pk: 'SYSTEM#ip-warmups' }],
);

export interface WarmupItem {
  ip: string;
  accountId: string;
  /** 1-based, up to WARMUP_PLAN.length. */
  stage: number;
  stageStartedAt: string;
  /** Sent from the address since the stage began. */
  sentInStage?: number;
  /** Sent over the whole plan before this stage began. */
  sentBeforeStage: number;
  planStartedAt: string;
  planUpdatedAt: string;
  history: Array<{ stage: number; limit: number; firstUpdatedAt: string; completedAt: string }>;
}

const stageVolume = (stage: number) => WARMUP_PLAN[Math.min(stage, WARMUP_PLAN.length) - 1]!;
const hourlyLimit = (stage: number) => Math.ceil(stageVolume(stage) / HOURLY_SHARE);
const hourOf = (at: number) => new Date(Math.floor(at / HOUR_MS) * HOUR_MS).toISOString();
/** SES's warm-up percentage for a plan at this stage: the share of the plan's stages completed. */
const sesPercentage = (stage: number) => Math.max(1, Math.round((100 * (stage - 1)) / WARMUP_PLAN.length));

export const findWarmup = (ip: string) => getItem<WarmupItem>(warmupKeys.ipWarmup(ip), { consistent: true });
export const listWarmups = () => queryAll<WarmupItem>(warmupKeys.ipWarmup(), '');

export async function startWarmup(ip: string, accountId: string, now = new Date()): Promise<WarmupItem | undefined> {
  const at = now.toISOString();
  const item: WarmupItem = { ip, accountId, stage: 1, stageStartedAt: at, sentInStage: 0, sentBeforeStage: 0, planStartedAt: at, planUpdatedAt: at, history: [] };
  if (!(await putItem(warmupKeys.ipWarmup(ip), item, { ifAbsent: true }))) return undefined;
  await setSesWarmup(ip, sesPercentage(1));
  return item;
}

export async function cancelWarmup(ip: string): Promise<void> {
  await deleteItem(warmupKeys.ipWarmup(ip));
  await setSesWarmup(ip, 100);
}

/** What this hour has sent from the address so far. */
export async function sentThisHour(ip: string, now = Date.now()): Promise<number> {
  return (await getItem<{ count?: number }>(warmupKeys.ipHourlySends(ip, hourOf(now)), { consistent: true }))?.count ?? 0;
}

/** When the next hour starts: when held-back mail may go. */
export const nextHourAt = (now = Date.now()) => Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;

/**
 * Takes up to `wanted` sends of a warming address's hour: as many as the stage's hourly limit
 * still allows (0 when the hour is used up). Atomic per attempt, so concurrent senders never take
 * more than the limit between them.
 */
export async function reserveWarmupSends(warmup: WarmupItem, wanted: number, now = Date.now()): Promise<number> {
  const limit = hourlyLimit(warmup.stage);
  const key = warmupKeys.ipHourlySends(warmup.ip, hourOf(now));
  for (let round = 0; round < 5; round++) {
    const have = (await getItem<{ count?: number }>(key, { consistent: true }))?.count ?? 0;
    const granted = Math.min(wanted, limit - have);
    if (granted <= 0) return 0;
    if ((await addToCounter(key, 'count', granted, { atMost: limit })) !== undefined) {
      // The hour's counter outlives its hour by a day, for GET /v3/ip_warmups' figures; then it goes.
      await updateItem(key, { ttl: Math.floor(now / 1000) + 2 * 24 * 3600 });
      await addToCounter(warmupKeys.ipWarmup(warmup.ip), 'sentInStage', granted, { ifExists: true });
      return granted;
    }
  }
  return 0;
}

/**
 * The scheduled step: each warming address whose stage has lasted a day and sent its volume moves
 * to the next stage (SES told), and one past the last stage is warm: its plan ends.
 */
export async function advanceWarmups(now = new Date()): Promise<void> {
  for (const warmup of await listWarmups()) {
    const sent = warmup.sentInStage ?? 0;
    if (now.getTime() - Date.parse(warmup.stageStartedAt) < MIN_STAGE_MS || sent < stageVolume(warmup.stage)) continue;
    const at = now.toISOString();
    const done = { stage: warmup.stage, limit: stageVolume(warmup.stage), firstUpdatedAt: warmup.stageStartedAt, completedAt: at };
    if (warmup.stage >= WARMUP_PLAN.length) {
      logger.info('IP warm-up complete', { ip: warmup.ip });
      await cancelWarmup(warmup.ip);
      continue;
    }
    const next = warmup.stage + 1;
    await updateItem(warmupKeys.ipWarmup(warmup.ip), { stage: next, stageStartedAt: at, sentInStage: 0, sentBeforeStage: warmup.sentBeforeStage + sent, planUpdatedAt: at, history: [...warmup.history, done] });
    await setSesWarmup(warmup.ip, sesPercentage(next));
  }
}

const sentShare = (warmup: WarmupItem) => `${Math.min(100, Math.floor((100 * (warmup.sentInStage ?? 0)) / stageVolume(warmup.stage)))}%`;

/** An item of GET /v3/ip_warmups. */
export function warmupListItem(warmup: WarmupItem) {
  return {
    ip: warmup.ip,
    sent_within_stage: sentShare(warmup),
    throttle: hourlyLimit(warmup.stage),
    stage_number: warmup.stage,
    stage_start_volume: warmup.sentBeforeStage,
    stage_start_time: warmup.stageStartedAt,
    stage_volume_limit: stageVolume(warmup.stage),
  };
}

/** GET /v3/ip_warmups/{ip}'s details, in both of Mailgun's spellings (its OpenAPI's and its Go client's). */
export function warmupDetails(warmup: WarmupItem, hourSent: number, now = Date.now()) {
  return {
    ...warmupListItem(warmup),
    stage: warmup.stage,
    start_volume: warmup.sentBeforeStage,
    stage_limit: stageVolume(warmup.stage),
    hourly_limit: hourlyLimit(warmup.stage),
    sent_this_hour: hourSent,
    stage_started_at: warmup.stageStartedAt,
    hour_started_at: hourOf(now),
    plan_started_at: warmup.planStartedAt,
    plan_last_updated_at: warmup.planUpdatedAt,
    total_stages: WARMUP_PLAN.length,
    stage_history: warmup.history.map((h) => ({ first_updated_at: h.firstUpdatedAt, completed_at: h.completedAt, limit: h.limit })),
  };
}
