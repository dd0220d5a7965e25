import { randomUUID } from 'node:crypto';
import { deleteItem, deleteItemIf, getItem, putItem, queryAll, updateItemIf, type Key } from '../../data/store';
import { Conflict, NotFound } from '../../platform/errors';
import type { AlertEventType } from './alert-event';
import { defineEntity } from '../../data/key-registry';

export const alertKeys = defineEntity(
  'alerts',
  {
  alertSetting: { what: 'an alert setting (event type, channel) of the account (`/v1/alerts/settings/events`), by its UUID', pk: 'ACCT#<account>#ALERTS', sk: 'SETTING#<id>', key: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: `SETTING#${id}` }) },
  alertPair: { what: "which setting holds an (event type, channel) pair: the pair's uniqueness, claimed by conditional put", pk: 'ACCT#<account>#ALERTS', sk: 'PAIR#<event type>#<channel>', key: (accountId: string, eventType: string, channel: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: `PAIR#${eventType}#${channel}` }) },
  alertSigningKey: { what: "the account's alerts webhook signing key, sealed (apart from the send webhooks' key)", pk: 'ACCT#<account>#ALERTS', sk: 'SIGNINGKEY', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: 'SIGNINGKEY' }) },
  alertSlack: { what: "the account's Slack connection: team, scope and its bot token, sealed", pk: 'ACCT#<account>#ALERTS', sk: 'SLACK', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: 'SLACK' }) },
  alertWindow: { what: "the last alert delivered for a subject on a list (by their hash): the dedupe window's claim", pk: 'ACCT#<account>#ALERTWINDOW', sk: '<sha256>', key: (accountId: string, pairHash: string): Key => ({ pk: `ACCT#${accountId}#ALERTWINDOW`, sk: pairHash }) },
  alertTestMails: { what: 'test alert emails an account sent in one UTC hour (`2026-11-26T12`), against their hourly quota', pk: 'ACCT#<account>#ALERTS', sk: 'TESTMAILS#<hour>', key: (accountId: string, hour: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: `TESTMAILS#${hour}` }) },
  alertRaised: { what: 'an alert raised, by the hash of its transition (the at-most-once guard), with what it said', pk: 'ACCT#<account>#ALERTSRAISED', sk: '<sha256>', key: (accountId: string, transitionHash: string): Key => ({ pk: `ACCT#${accountId}#ALERTSRAISED`, sk: transitionHash }) },
  alertDelivery: { what: 'the claim of one delivery attempt of an alert to one setting, by the queue message that holds it', pk: 'ACCT#<account>#ALERTDELIVERY#<alert id>', sk: '<setting id>#<attempt>', key: (accountId: string, alertId: string, settingId: string, attempt: number): Key => ({ pk: `ACCT#${accountId}#ALERTDELIVERY#${alertId}`, sk: `${settingId}#${attempt}` }) },
  },
  [{ what: "an account's alert settings", pk: 'ACCT#<account>#ALERTS', skPrefix: 'SETTING#', reads: ['alertSetting'] }],
);

export const ALERT_CHANNELS = ['email', 'slack', 'webhook'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/** A Slack channel the platform stopped posting to, and why (Slack refused it for good). */
export interface DisabledChannel {
  disabled_at: string;
  reason: string;
}

/** What a setting delivers to, as the wire names it: the fields of its channel only. */
export interface ChannelSettings {
  emails?: string[];
  url?: string;
  channel_ids?: string[];
  disabled_channel_ids?: Record<string, DisabledChannel>;
}

/** One (event type, channel) alert of an account. */
export interface AlertSettingItem {
  id: string;
  eventType: AlertEventType;
  channel: AlertChannel;
  settings: ChannelSettings;
  /** Set when deliveries were given up on (the webhook's retries spent); the setting then sends nothing. */
  disabledAt?: string;
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
}

export type AlertSettingInput = Pick<AlertSettingItem, 'eventType' | 'channel' | 'settings'>;

interface PairItem {
  settingId: string;
  /** Epoch ms of the claim: a claim without its setting is taken over only once its writer is surely gone. */
  claimedAt: number;
}

/** How long a claim may wait for its setting to be written before it counts as abandoned. */
const ABANDONED_CLAIM_MS = 60_000;

const SETTING_PREFIX = 'SETTING#';

export async function listAlertSettings(accountId: string): Promise<AlertSettingItem[]> {
  const all = await queryAll<AlertSettingItem>(alertKeys.alertSetting(accountId), SETTING_PREFIX);
  return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export async function findAlertSetting(accountId: string, id: string): Promise<AlertSettingItem | undefined> {
  return getItem<AlertSettingItem>(alertKeys.alertSetting(accountId, id), { consistent: true });
}

/** The settings an event of this type goes to now: disabled ones send nothing. */
export async function activeSettingsFor(accountId: string, eventType: AlertEventType): Promise<AlertSettingItem[]> {
  return (await listAlertSettings(accountId)).filter((setting) => setting.eventType === eventType && !setting.disabledAt);
}

const duplicate = (input: AlertSettingInput) => new Conflict(`An alert for event type '${input.eventType}' on channel '${input.channel}' already exists`);

/**
 * Claims an (event type, channel) pair for a setting, with a conditional put: the table has no
 * transactions, so the pair's own item is what keeps two settings from holding it. A claim left by
 * a setting that was never written (a writer that died in between) is taken over after a minute;
 * sooner, it may be a writer still on its way.
 */
async function claimPair(accountId: string, input: AlertSettingInput, settingId: string): Promise<void> {
  const key = alertKeys.alertPair(accountId, input.eventType, input.channel);
  const claim: PairItem = { settingId, claimedAt: Date.now() };
  if (await putItem<PairItem>(key, claim, { ifAbsent: true })) return;
  const holder = await getItem<PairItem>(key, { consistent: true });
  if (holder?.settingId === settingId) return;
  const abandoned = holder && Date.now() - (holder.claimedAt ?? 0) > ABANDONED_CLAIM_MS && !(await findAlertSetting(accountId, holder.settingId));
  if (holder && !abandoned) throw duplicate(input);
  if (holder ? await updateItemIf(key, { settingId: holder.settingId }, { ...claim }) : await putItem<PairItem>(key, claim, { ifAbsent: true })) return;
  throw duplicate(input);
}

async function releasePair(accountId: string, setting: Pick<AlertSettingItem, 'eventType' | 'channel' | 'id'>): Promise<void> {
  await deleteItemIf(alertKeys.alertPair(accountId, setting.eventType, setting.channel), { settingId: setting.id });
}

export async function createAlertSetting(accountId: string, input: AlertSettingInput): Promise<AlertSettingItem> {
  const now = new Date().toISOString();
  const item: AlertSettingItem = { id: randomUUID(), ...input, createdAt: now, updatedAt: now };
  await claimPair(accountId, input, item.id);
  await putItem(alertKeys.alertSetting(accountId, item.id), item);
  return item;
}

/** A full replace: the new event type, channel and settings, enabled again (its URL was just checked). */
export async function replaceAlertSetting(accountId: string, id: string, input: AlertSettingInput): Promise<AlertSettingItem> {
  const current = await findAlertSetting(accountId, id);
  if (!current) throw new NotFound('Alert setting not found');
  const samePair = current.eventType === input.eventType && current.channel === input.channel;
  if (!samePair) await claimPair(accountId, input, id);
  const item: AlertSettingItem = { id, ...input, createdAt: current.createdAt, updatedAt: new Date().toISOString() };
  await putItem(alertKeys.alertSetting(accountId, id), item);
  if (!samePair) await releasePair(accountId, current);
  return item;
}

export async function deleteAlertSetting(accountId: string, id: string): Promise<AlertSettingItem> {
  const current = await findAlertSetting(accountId, id);
  if (!current) throw new NotFound('Alert setting not found');
  await deleteItem(alertKeys.alertSetting(accountId, id));
  await releasePair(accountId, current);
  return current;
}

/** Deletes every setting of a channel (Slack's, when the Slack connection goes). */
export async function deleteChannelSettings(accountId: string, channel: AlertChannel): Promise<number> {
  const settings = (await listAlertSettings(accountId)).filter((setting) => setting.channel === channel);
  for (const setting of settings) {
    await deleteItem(alertKeys.alertSetting(accountId, setting.id));
    await releasePair(accountId, setting);
  }
  return settings.length;
}

/**
 * Stops a setting for good until it is saved again. Only the version that failed is disabled: a
 * setting replaced meanwhile (a new URL) keeps going.
 */
export async function disableAlertSetting(accountId: string, setting: AlertSettingItem, reason: string): Promise<boolean> {
  return updateItemIf(alertKeys.alertSetting(accountId, setting.id), { updatedAt: setting.updatedAt }, { disabledAt: new Date().toISOString(), disabledReason: reason });
}

/** Marks Slack channels of a setting disabled (Slack refused them for good); the others go on. */
export async function disableSlackChannels(accountId: string, settingId: string, refused: Record<string, string>): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const current = await findAlertSetting(accountId, settingId);
    if (!current) return;
    const at = new Date().toISOString();
    const disabled = { ...current.settings.disabled_channel_ids };
    for (const [channelId, reason] of Object.entries(refused)) disabled[channelId] = { disabled_at: at, reason };
    // Compare-and-set on updatedAt, so a replace in between is not overwritten with the old
    // settings; updatedAt itself stays, as it versions what the customer saved.
    if (await updateItemIf(alertKeys.alertSetting(accountId, settingId), { updatedAt: current.updatedAt }, { settings: { ...current.settings, disabled_channel_ids: disabled } })) return;
  }
}
