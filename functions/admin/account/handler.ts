import { z } from 'zod/v3';
import { BadRequest, NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { boundedText, integer, MAX_LENGTH, schema, text } from '../../platform/http/params';
import { accountRoutes } from './routes';
import { featureChanges } from '../../accounts/features';
import { forgetRedaction } from '../../webhooks/redact-pii';
import { findAccount, patchAccount, type AccountItem } from '../../accounts/account-store';
import { ACCOUNT_FEATURES, accountSettingsJson } from './present';

/** A day, in seconds: the longest a dashboard session setting may be. */
const MAX_TIMEOUT = 86_400;
const timeout = () =>
  integer()
    .refine((n) => n >= 60 && n <= MAX_TIMEOUT, { message: `must be between 60 and ${MAX_TIMEOUT} seconds` })
    .optional();

const updateInput = schema(() =>
  z.object({
    name: text()
      .refine((v) => v.trim().length > 0 && v.length <= MAX_LENGTH.name, { message: `must be 1 to ${MAX_LENGTH.name} characters` })
      .optional(),
    inactive_session_timeout: timeout(),
    absolute_session_timeout: timeout(),
    logout_redirect_url: boundedText(MAX_LENGTH.url)
      .refine((v) => /^https?:\/\/[^\s/]+/i.test(v), { message: 'must be an absolute http(s) URL' })
      .optional(),
  }),
);

export const handler = areaHandler(accountRoutes, {
  /** GET /v5/accounts (an addition: Mailgun has no read of these): the acting account's settings. */
  getAccount: operation(schema(() => z.object({}).passthrough()), async (req) => {
    const account = await findAccount(req.accountId);
    if (!account) throw new NotFound('Account not found');
    return accountSettingsJson(account);
  }),

  /**
   * PUT /v5/accounts: the name shows wherever the account is named (a subaccount's list entry, tag
   * listings' `account_name`); the session settings are kept for a dashboard, as this platform has
   * no sessions of its own.
   */
  updateAccount: operation(updateInput, async (req, input) => {
    const changes: Partial<AccountItem> = {};
    if (typeof input.name === 'string') changes.name = input.name.trim();
    const session = { inactiveTimeout: input.inactive_session_timeout, absoluteTimeout: input.absolute_session_timeout, logoutRedirectUrl: input.logout_redirect_url };
    if (Object.values(session).some((v) => v !== undefined)) {
      const current = (await findAccount(req.accountId))?.session ?? {};
      changes.session = { ...current, ...Object.fromEntries(Object.entries(session).filter(([, v]) => v !== undefined)) };
    }
    if (!Object.keys(changes).length) throw new BadRequest("Nothing to update: give 'name', 'inactive_session_timeout', 'absolute_session_timeout' or 'logout_redirect_url'");
    await patchAccount(req.accountId, { ...changes, updatedAt: new Date().toISOString() });
    return { message: 'Account info has been updated' };
  }),

  /**
   * PUT /v5/accounts/features: `webhooks_redact_pii` (functions/webhooks/redact-pii.ts). mailgun.js
   * also knows `ai_insights`, an analysis this platform does not have: refused, not stored.
   */
  updateAccountFeatures: operation(schema(() => z.object({}).passthrough()), async (req) => {
    const source = { ...req.params, ...(req.json && typeof req.json === 'object' ? (req.json as Record<string, unknown>) : {}) };
    if (source['ai_insights'] !== undefined) throw new BadRequest('ai_insights is not available on this platform');
    const changes = featureChanges(req, ACCOUNT_FEATURES);
    if (!Object.keys(changes).length) throw new BadRequest('No valid updates provided');
    const account = await findAccount(req.accountId);
    await patchAccount(req.accountId, { features: { ...account?.features, ...changes }, updatedAt: new Date().toISOString() });
    forgetRedaction(req.accountId);
    return { success: true };
  }),
}, { onBehalfOf });
