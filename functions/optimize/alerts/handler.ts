import { z } from 'zod/v3';
import { addToCounter } from '../../data/store';
import { ApiError, BadRequest, NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { pivotPaging, pivotQuery } from '../../platform/http/paging';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { ALERT_EVENT_TYPES } from './alert-event';
import { postAlert, slackBlocks } from './channels';
import { mailAlert, NoAlertSender } from './email-alert';
import { alertTitle } from './alert-message';
import { alertHistoryJson, channelPage, END_PAGE, eventSettingJson, slackJson } from './present';
import { historyPage } from './history';
import { alertRoutes } from './routes';
import { sampleAlert } from './sample-alert';
import { alertSettingInput, channelsInput, emailTestInput, historyInput, replaceSettingInput, idInput, slackSettingsInput, slackTestInput, webhookTestInput } from './schemas';
import { checkChannelIds, checkEmails, reachable, settingInput } from './settings-input';
import { createAlertSetting, deleteAlertSetting, deleteChannelSettings, listAlertSettings, replaceAlertSetting, alertKeys } from './settings-store';
import { alertSigningKey, rotateAlertSigningKey } from './signing-key';
import { channelInfo, listChannels, postMessage, revokeToken, SlackRefusal, SlackUnavailable, tokenTeam } from './slack-api';
import { deleteSlackConnection, requireSlackToken, saveSlackConnection, slackConnection, slackToken } from './slack-store';
import { checkWebhookUrl } from '../../webhooks/url-policy';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A setting id from the path: anything but a UUID names no setting. */
function settingId(id: string): string {
  if (!UUID.test(id)) throw new NotFound('Alert setting not found');
  return id.toLowerCase();
}

/** What Slack's answer means to the caller: a refusal is theirs to fix (4xx), Slack being away is a 502. */
async function askSlack<T>(call: () => Promise<T>, notFound?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SlackRefusal) {
      if (error.tokenRefused) throw new BadRequest(`Slack refused the stored token (${error.code}): connect Slack again with PUT /v1/alerts/settings/slack`);
      if (notFound && error.channelRefused) throw new NotFound(notFound);
      throw new BadRequest(`Slack refused the request: ${error.code}`);
    }
    if (error instanceof SlackUnavailable) throw new ApiError(502, error.message);
    throw error;
  }
}

const SENT = { message: 'sent' };

const addSetting = operation(alertSettingInput, async (req, input) => {
  const checked = await settingInput(req.accountId, input.event_type, input.channel, input.settings);
  return eventSettingJson(await createAlertSetting(req.accountId, checked));
});

const deleteSetting = operation(idInput, async (req, input) => {
  await deleteAlertSetting(req.accountId, settingId(input.id));
  return { message: 'Alert setting deleted' };
});

/** Test alert emails an account may send an hour. */
const TEST_MAILS_PER_HOUR = 10;

export const handler = areaHandler(alertRoutes, {
  alertEvents: operation(() => z.object({}).passthrough(), async () => ({ events: [...ALERT_EVENT_TYPES] })),

  alertSettings: operation(() => z.object({}).passthrough(), async (req) => {
    const [events, slack, signingKey] = await Promise.all([listAlertSettings(req.accountId), slackConnection(req.accountId), alertSigningKey(req.accountId)]);
    return { events: events.map(eventSettingJson), slack: slackJson(slack), webhooks: { signing_key: signingKey } };
  }),

  /** The alerts raised for the account, in time order, with each setting's delivery; pivot pages like the blocklist events. */
  alertHistory: operation(historyInput, async (req, input) => {
    if (input.timerangeStart && input.timerangeEnd && input.timerangeStart >= input.timerangeEnd) throw new BadRequest("Invalid parameter 'timerangeStart': must be before 'timerangeEnd'");
    const query = pivotQuery(input);
    const items = await historyPage(req.accountId, { from: input.timerangeStart, to: input.timerangeEnd, event: input.event, limit: input.limit, ...query });
    // Pages read backwards (last, prev) are shown in time order like the others.
    if (!query.ascending) items.reverse();
    const extra = { timerangeStart: input.timerangeStart, timerangeEnd: input.timerangeEnd, event: input.event };
    return { items: items.map(alertHistoryJson), paging: pivotPaging(req.baseUrl, '/v1/alerts/history', 'pivot', input, items.map((item) => item.sk), extra) };
  }),

  addAlertSetting: addSetting,
  // mailgun-go's AddAlert posts here.
  addAlertSettingGo: addSetting,

  replaceAlertSetting: operation(replaceSettingInput, async (req, input) => {
    const id = settingId(input.id);
    const checked = await settingInput(req.accountId, input.event_type, input.channel, input.settings);
    return eventSettingJson(await replaceAlertSetting(req.accountId, id, checked));
  }),

  deleteAlertSetting: deleteSetting,
  // mailgun-go's DeleteAlert deletes here.
  deleteAlertSettingGo: deleteSetting,

  rotateAlertSigningKey: operation(() => z.object({}).passthrough(), async (req) => ({ signing_key: await rotateAlertSigningKey(req.accountId) })),

  /** Connects Slack: the token is checked with Slack (auth.test) before it is stored, sealed. */
  saveSlackSettings: operation(slackSettingsInput, async (req, input) => {
    const team = await askSlack(async () => {
      try {
        return await tokenTeam(input.token);
      } catch (error) {
        if (error instanceof SlackRefusal) throw new BadRequest(`Invalid parameter 'token': Slack refused it (${error.code})`);
        throw error;
      }
    });
    if (input.team_id && team.teamId && input.team_id !== team.teamId) throw new BadRequest(`Invalid parameter 'team_id': the token belongs to team ${team.teamId}`);
    await saveSlackConnection(req.accountId, { teamId: team.teamId || (input.team_id ?? ''), teamName: input.team_name ?? team.teamName, scope: input.scope ?? '' }, input.token);
    return { message: 'Slack settings updated' };
  }),

  deleteSlackSettings: operation(() => z.object({}).passthrough(), async (req) => {
    const connected = await slackConnection(req.accountId);
    const removed = await deleteChannelSettings(req.accountId, 'slack');
    if (!connected && !removed) throw new NotFound('Slack is not connected');
    await deleteSlackConnection(req.accountId);
    return { message: 'Slack settings deleted' };
  }),

  /** Revokes the token at Slack, then forgets it and the Slack settings (Mailgun does both). */
  revokeSlackToken: operation(() => z.object({}).passthrough(), async (req) => {
    const token = await slackToken(req.accountId);
    if (!token) throw new NotFound('Slack is not connected');
    try {
      await revokeToken(token);
    } catch (error) {
      // A token Slack no longer honours is as revoked as it gets; Slack being away is not.
      if (!(error instanceof SlackRefusal && error.tokenRefused)) await askSlack(() => Promise.reject(error));
    }
    await deleteChannelSettings(req.accountId, 'slack');
    await deleteSlackConnection(req.accountId);
    return { message: 'Slack token revoked' };
  }),

  /**
   * The workspace's channels, a page at a time. `page` is Slack's own cursor; Slack's cursors go
   * forward only, so `previous` is the first page and `last` (with `next` on the last page) an
   * empty page past the end.
   */
  slackChannels: operation(channelsInput, async (req, input) => {
    const token = await requireSlackToken(req.accountId);
    if (input.page === END_PAGE) return channelPage(req.baseUrl, [], input.limit, '');
    const { channels, nextCursor } = await askSlack(() => listChannels(token, input.limit, input.page));
    return channelPage(req.baseUrl, channels, input.limit, nextCursor);
  }),

  slackChannel: operation(idInput, async (req, input) => {
    const token = await requireSlackToken(req.accountId);
    return askSlack(() => channelInfo(token, input.id), 'Slack channel not found');
  }),

  /** POSTs a signed test alert to a URL (no GET check: nothing is saved) and says whether it was taken. */
  testAlertWebhook: operation(webhookTestInput, async (req, input) => {
    const url = await checkWebhookUrl(input.url);
    const { status, why } = await postAlert(req.accountId, url, sampleAlert(req.accountId, input.event_type));
    if (status === undefined || status < 200 || status >= 300) throw new BadRequest(`${url} did not take the test alert: ${why}`);
    return SENT;
  }),

  testAlertEmail: operation(emailTestInput, async (req, input) => {
    const emails = checkEmails(input.emails, 'emails');
    await reachable(req.accountId, emails);
    // Test mail goes out from a domain of the platform's (ALERTS_EMAIL_DOMAIN) or the sandbox: a
    // quota keeps the route from being a way to send mail at will in its name.
    const hour = new Date().toISOString().slice(0, 13);
    if ((await addToCounter(alertKeys.alertTestMails(req.accountId, hour), 'sent', 1, { atMost: TEST_MAILS_PER_HOUR })) === undefined) {
      throw new ApiError(429, `Too many test alert emails: at most ${TEST_MAILS_PER_HOUR} an hour`);
    }
    try {
      await mailAlert(req.accountId, sampleAlert(req.accountId, input.event_type), emails, true);
    } catch (error) {
      if (error instanceof NoAlertSender) throw new BadRequest(error.message);
      throw error;
    }
    return SENT;
  }),

  /** Posts a test alert to the channels given, or to those of the event type's Slack setting. */
  testAlertSlack: operation(slackTestInput, async (req, input) => {
    const token = await requireSlackToken(req.accountId);
    let channelIds = input.channel_ids && checkChannelIds(input.channel_ids, 'channel_ids');
    if (!channelIds) {
      const setting = (await listAlertSettings(req.accountId)).find((candidate) => candidate.channel === 'slack' && candidate.eventType === input.event_type);
      if (!setting) throw new BadRequest(`Missing parameter 'channel_ids': there is no Slack alert for event type '${input.event_type}' to take them from`);
      channelIds = setting.settings.channel_ids ?? [];
    }
    const alert = sampleAlert(req.accountId, input.event_type);
    for (const channelId of channelIds) await askSlack(() => postMessage(token, channelId, `[Test] ${alertTitle(alert)}`, slackBlocks(alert, true)));
    return SENT;
  }),
}, { onBehalfOf });
