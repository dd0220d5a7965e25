import { z } from 'zod/v3';
import { featureChanges } from '../../accounts/features';
import { BadRequest, Forbidden, NotFound } from '../../platform/errors';
import { areaHandler, operation, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { boundedText, flag, MAX_LENGTH, oneOfValues, schema, text } from '../../platform/http/params';
import { skipLimitInput } from '../../platform/http/paging';
import { subaccountRoutes } from './routes';
import { listSubaccounts } from '../../accounts/subaccount-list';
import { createSubaccount, findSubaccount, setFeatures, setSubaccountStatus, SUBACCOUNT_FEATURES } from '../../accounts/subaccount-store';
import { subaccountJson } from './present';
import { findAccount, type AccountItem } from '../../accounts/account-store';

const listInput = schema(() =>
  z.object({
    ...skipLimitInput(10, 1000),
    sort: oneOfValues(['asc', 'desc'] as const).default('asc'),
    filter: text().optional(),
    enabled: flag().optional(),
    closed: flag().default(false),
  }),
);
const createInput = schema(() => z.object({ name: text().refine((v) => v.trim().length > 0 && v.length <= MAX_LENGTH.name, { message: `must be 1 to ${MAX_LENGTH.name} characters` }) }));
const idInput = schema(() => z.object({ subaccount_id: z.string() }));
const disableInput = schema(() => z.object({ subaccount_id: z.string(), reason: boundedText(MAX_LENGTH.note).optional(), note: boundedText(MAX_LENGTH.note).optional() }));
const featuresInput = schema(() => z.object({ subaccount_id: z.string() }).passthrough());

/** Only a primary account has subaccounts: a subaccount's keys (or a parent acting on one) manage none. */
async function requireParent(req: ApiRequest): Promise<string> {
  const account = await findAccount(req.accountId);
  if (account?.parentId) throw new Forbidden('A subaccount cannot have subaccounts');
  return req.accountId;
}

async function requireSubaccount(req: ApiRequest, id: string): Promise<AccountItem> {
  const account = await findSubaccount(await requireParent(req), id);
  if (!account || account.status === 'closed') throw new NotFound('Not Found');
  return account;
}

export const handler = areaHandler(subaccountRoutes, {
  listSubaccounts: operation(listInput, async (req, input) => {
    const filter = input.filter?.toLowerCase();
    const all = (await listSubaccounts(await requireParent(req)))
      .filter((a) => (input.closed ? true : a.status !== 'closed'))
      .filter((a) => input.enabled === undefined || (a.status === 'open') === input.enabled)
      .filter((a) => !filter || a.name.toLowerCase().includes(filter))
      .sort((a, b) => a.name.localeCompare(b.name) || a.accountId.localeCompare(b.accountId));
    if (input.sort === 'desc') all.reverse();
    return { subaccounts: all.slice(input.skip, input.skip + input.limit).map(subaccountJson), total: all.length };
  }),

  createSubaccount: operation(createInput, async (req, input) => ({ subaccount: subaccountJson(await createSubaccount(await requireParent(req), input.name.trim())) })),

  getSubaccount: operation(idInput, async (req, input) => ({ subaccount: subaccountJson(await requireSubaccount(req, input.subaccount_id)) })),

  disableSubaccount: operation(disableInput, async (req, input) => {
    const account = await requireSubaccount(req, input.subaccount_id);
    if (account.status === 'disabled') throw new BadRequest('subaccount is already disabled');
    const disabled = await setSubaccountStatus(account, 'disabled', { reason: input.reason, note: input.note });
    if (!disabled) throw new BadRequest('subaccount changed meanwhile: try again');
    return { subaccount: subaccountJson(disabled) };
  }),

  enableSubaccount: operation(idInput, async (req, input) => {
    const account = await requireSubaccount(req, input.subaccount_id);
    if (account.status === 'open') throw new BadRequest('subaccount is already enabled');
    const enabled = await setSubaccountStatus(account, 'open');
    if (!enabled) throw new BadRequest('subaccount changed meanwhile: try again');
    return { subaccount: subaccountJson(enabled) };
  }),

  deleteSubaccount: operation(() => z.object({}).passthrough(), async (req) => {
    // The pipeline has resolved X-Mailgun-On-Behalf-Of to one of the caller's subaccounts.
    if (req.accountId === req.principal.accountId) throw new BadRequest('Name the subaccount to delete in the X-Mailgun-On-Behalf-Of header');
    const account = await findSubaccount(req.principal.accountId, req.accountId);
    if (!account) throw new NotFound('Not Found');
    // Closed: its keys and SMTP logins refused, hidden from lists unless `closed=true`; its data
    // ages out as every account's does.
    await setSubaccountStatus(account, 'closed');
    return { message: 'Subaccount successfully deleted' };
  }),

  updateSubaccountFeatures: operation(featuresInput, async (req, input) => {
    const account = await requireSubaccount(req, input.subaccount_id);
    const changes = featureChanges(req, SUBACCOUNT_FEATURES);
    if (!Object.keys(changes).length) throw new BadRequest('No valid updates provided');
    const updated = await setFeatures(account, changes);
    return { features: subaccountJson(updated).features };
  }),
}, { onBehalfOf });
