import { z } from 'zod/v3';
import { enableMonthlyLimit, getMonthlyLimit, MIN_MONTHLY_LIMIT, monthlyCount, removeMonthlyLimit, setMonthlyLimit } from '../../accounts/monthly-limit';
import { BadRequest, NotFound } from '../../platform/errors';
import { areaHandler, operation, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { integer, schema } from '../../platform/http/params';
import { findSubaccount } from '../../accounts/subaccount-store';
import { limitRoutes } from './routes';
import { seedMonthlyCount } from '../../accounts/monthly-count-seed';

const limitInput = () =>
  integer().refine((n) => n >= MIN_MONTHLY_LIMIT, { message: `The limit parameter minumum is ${MIN_MONTHLY_LIMIT}` });
const setInput = schema(() => z.object({ limit: limitInput() }));
const subInput = schema(() => z.object({ subaccount_id: z.string() }));
const setSubInput = schema(() => z.object({ subaccount_id: z.string(), limit: limitInput() }));

/** `{limit, current, period, enabled}`; 404 when the account has no limit (Mailgun's words). */
async function limitJson(accountId: string) {
  const limit = await getMonthlyLimit(accountId);
  if (!limit) throw new NotFound('No threshold for account');
  return { limit: limit.limit, current: await monthlyCount(accountId), period: '1m', enabled: limit.enabled };
}

/** One of the caller's (open or disabled) subaccounts; anything else is not one. */
async function subaccountOf(req: ApiRequest, id: string): Promise<string> {
  const account = await findSubaccount(req.accountId, id);
  if (!account || account.status === 'closed') throw new BadRequest('Not a subaccount');
  return account.accountId;
}

export const handler = areaHandler(limitRoutes, {
  getMonthlyLimit: operation(() => z.object({}).passthrough(), (req) => limitJson(req.accountId)),
  setMonthlyLimit: operation(setInput, async (req, input) => {
    await setMonthlyLimit(req.accountId, input.limit);
    await seedMonthlyCount(req.accountId);
    return { success: true };
  }),
  deleteMonthlyLimit: operation(() => z.object({}).passthrough(), async (req) => {
    await removeMonthlyLimit(req.accountId);
    return { success: true };
  }),
  enableMonthlyLimit: operation(() => z.object({}).passthrough(), async (req) => {
    if (!(await enableMonthlyLimit(req.accountId))) throw new NotFound('No threshold for account');
    return { success: true };
  }),
  getSubaccountMonthlyLimit: operation(subInput, async (req, input) => limitJson(await subaccountOf(req, input.subaccount_id))),
  setSubaccountMonthlyLimit: operation(setSubInput, async (req, input) => {
    const subaccountId = await subaccountOf(req, input.subaccount_id);
    await setMonthlyLimit(subaccountId, input.limit);
    await seedMonthlyCount(subaccountId);
    return { success: true };
  }),
  deleteSubaccountMonthlyLimit: operation(subInput, async (req, input) => {
    await removeMonthlyLimit(await subaccountOf(req, input.subaccount_id));
    return { success: true };
  }),
}, { onBehalfOf });
