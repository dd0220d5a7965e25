import { findAccount } from './account-store';
import { Forbidden, NotFound } from '../platform/errors';
import type { OnBehalfOf } from '../platform/http/pipeline';

/**
 * X-Mailgun-On-Behalf-Of: a user or web key of an account (not a domain's sending key) may act for one of its own subaccounts, and only
 * for one that is open (or, where the route allows it, disabled: deleting one). Every area's entry
 * hands this to the request pipeline (functions/platform/http/pipeline.ts), which reads the header.
 */
export const onBehalfOf: OnBehalfOf = async (principal, subaccountId, { anyStatus }) => {
  if (principal.kind === 'domain') throw new Forbidden('Only user and web keys may act on behalf of a subaccount');
  const account = await findAccount(subaccountId);
  if (!account || account.parentId !== principal.accountId || account.status === 'closed') throw new NotFound('Subaccount not found');
  if (account.status !== 'open' && !anyStatus) throw new Forbidden('Subaccount is disabled');
  return account.accountId;
};
