import type { SlackConnection } from './slack-store';
import type { AlertHistoryItem } from './history';
import type { AlertSettingItem } from './settings-store';

/** An EventSetting as the wire shows it (contract 1.9): its channel's fields only, `disabled_at` null or RFC 3339. */
export function eventSettingJson(setting: AlertSettingItem) {
  const { emails, url, channel_ids, disabled_channel_ids } = setting.settings;
  const settings =
    setting.channel === 'email' ? { emails: emails ?? [] } : setting.channel === 'webhook' ? { url: url ?? '' } : { channel_ids: channel_ids ?? [], disabled_channel_ids: disabled_channel_ids ?? {} };
  return {
    id: setting.id,
    event_type: setting.eventType,
    channel: setting.channel,
    settings,
    disabled_at: setting.disabledAt ?? null,
    ...(setting.disabledReason && setting.disabledAt ? { disabled_reason: setting.disabledReason } : {}),
  };
}

/** The Slack part of GET settings: never the token, once saved (an empty string stands in its place). */
export function slackJson(connection: SlackConnection | undefined) {
  return { token: '', team_id: connection?.teamId ?? '', team_name: connection?.teamName ?? '', scope: connection?.scope ?? '' };
}

/** A channel page, with Mailgun's absolute paging URLs (see handler.ts for what each holds). */
export function channelPage(baseUrl: string, items: unknown[], limit: number, nextCursor: string) {
  const url = (page?: string) => `${baseUrl}/v1/alerts/slack/channels?${new URLSearchParams({ ...(page ? { page } : {}), limit: String(limit) }).toString()}`;
  const end = url(END_PAGE);
  return { items, paging: { first: url(), previous: url(), next: nextCursor ? url(nextCursor) : end, last: end } };
}

/** The page past the last one: Slack's cursors go forward only, so `next` on the last page and `last` lead here, to an empty page. */
export const END_PAGE = 'end';

/**
 * One raised alert of the history: what it said, and per setting where its delivery stands
 * (never where it delivers to: the settings say that, to those who may read them).
 */
export function alertHistoryJson(item: AlertHistoryItem) {
  return {
    id: item.id,
    event: item.event,
    subject: item.subject,
    list: item.list,
    list_name: item.listName,
    message: item.message,
    timestamp: item.timestamp,
    ...(item.suppressed ? { suppressed: item.suppressed } : {}),
    deliveries: Object.entries(item.deliveries).map(([settingId, d]) => ({
      setting_id: settingId,
      channel: d.channel,
      state: d.state,
      attempts: d.attempts,
      ...(d.lastError ? { last_error: d.lastError } : {}),
      ...(d.nextAttemptAt ? { next_attempt_at: d.nextAttemptAt } : {}),
      updated_at: d.updatedAt,
    })),
  };
}
