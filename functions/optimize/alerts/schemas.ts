import { z } from 'zod/v3';
import { boundedList, boundedText, integer, isoInstant, MAX_LENGTH, oneOfValues, schema, text } from '../../platform/http/params';
import { pivotPageInput } from '../../platform/http/paging';
import { ALERT_EVENT_TYPES } from './alert-event';
import { ALERT_CHANNELS } from './settings-store';

const eventType = () => oneOfValues(ALERT_EVENT_TYPES);

/** `settings` arrives as a JSON object, or (forms) as a JSON string of one. */
const settingsObject = () =>
  z.preprocess(
    (value) => {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    },
    z.object({ emails: boundedList(MAX_LENGTH.address).optional(), url: boundedText(MAX_LENGTH.url).optional(), channel_ids: boundedList(MAX_LENGTH.reference).optional() }, { invalid_type_error: 'must be an object' }),
  );

export const alertSettingInput = schema(() =>
  z.object({
    event_type: eventType(),
    channel: oneOfValues(ALERT_CHANNELS),
    settings: settingsObject(),
  }),
);

/** A path `{id}`: a setting's UUID, or a Slack channel's id. */
export const idInput = schema(() => z.object({ id: z.string() }));

export const replaceSettingInput = schema(() => alertSettingInput().extend({ id: z.string() }));

export const slackSettingsInput = schema(() =>
  z.object({ token: boundedText(MAX_LENGTH.secret), team_id: boundedText(MAX_LENGTH.reference).optional(), team_name: boundedText(MAX_LENGTH.name).optional(), scope: boundedText(MAX_LENGTH.description).optional() }),
);

export const channelsInput = schema(() =>
  z.object({
    page: text().optional(),
    limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(100),
  }),
);

export const webhookTestInput = schema(() => z.object({ event_type: eventType(), url: boundedText(MAX_LENGTH.url) }));
export const emailTestInput = schema(() => z.object({ event_type: eventType(), emails: boundedList(MAX_LENGTH.address) }));
export const slackTestInput = schema(() => z.object({ event_type: eventType(), channel_ids: boundedList(MAX_LENGTH.reference).optional() }));

/** The alert history: a time range (`timerangeStart` inclusive, `timerangeEnd` exclusive), an event type, pivot pages. */
export const historyInput = schema(() =>
  z
    .object({ timerangeStart: isoInstant().optional(), timerangeEnd: isoInstant().optional(), event: eventType().optional() })
    .and(pivotPageInput('pivot', 25, 100)),
);
