import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/alerts';

/**
 * Alerts (optimize contract 1.9, 2.7): which events exist, the account's (event type, channel)
 * settings, the alerts webhook signing key, the Slack connection and the test sends. The Go SDK
 * adds and deletes settings at `/v1/alerts/settings[/{id}]`: those rows are aliases. An addition of
 * ours: the alerts raised and their deliveries (`/v1/alerts/history`).
 */
export const alertRoutes = [
  { method: 'GET', path: '/v1/alerts/events', area, operation: 'alertEvents', access: 'read' },
  { method: 'GET', path: '/v1/alerts/settings', area, operation: 'alertSettings', access: 'read' },
  { method: 'GET', path: '/v1/alerts/history', area, operation: 'alertHistory', access: 'read' },
  { method: 'POST', path: '/v1/alerts/settings/events', area, operation: 'addAlertSetting', access: 'write' },
  { method: 'POST', path: '/v1/alerts/settings', area, operation: 'addAlertSettingGo', access: 'write' },
  { method: 'PUT', path: '/v1/alerts/settings/events/{id}', area, operation: 'replaceAlertSetting', access: 'write' },
  { method: 'DELETE', path: '/v1/alerts/settings/events/{id}', area, operation: 'deleteAlertSetting', access: 'write' },
  { method: 'DELETE', path: '/v1/alerts/settings/{id}', area, operation: 'deleteAlertSettingGo', access: 'write' },
  { method: 'PUT', path: '/v1/alerts/settings/webhooks/signing_key', area, operation: 'rotateAlertSigningKey', access: 'write', changesCredentials: true },
  { method: 'PUT', path: '/v1/alerts/settings/slack', area, operation: 'saveSlackSettings', access: 'write', changesCredentials: true },
  { method: 'DELETE', path: '/v1/alerts/settings/slack', area, operation: 'deleteSlackSettings', access: 'write', changesCredentials: true },
  { method: 'DELETE', path: '/v1/alerts/slack/oauth', area, operation: 'revokeSlackToken', access: 'write', changesCredentials: true },
  { method: 'GET', path: '/v1/alerts/slack/channels', area, operation: 'slackChannels', access: 'read' },
  { method: 'GET', path: '/v1/alerts/slack/channels/{id}', area, operation: 'slackChannel', access: 'read' },
  { method: 'POST', path: '/v1/alerts/webhooks/test', area, operation: 'testAlertWebhook', access: 'write' },
  { method: 'POST', path: '/v1/alerts/email/test', area, operation: 'testAlertEmail', access: 'write' },
  { method: 'POST', path: '/v1/alerts/slack/test', area, operation: 'testAlertSlack', access: 'write' },
] as const satisfies readonly RouteSpec[];
