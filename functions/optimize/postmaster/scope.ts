import { accountsCovered } from '../../accounts/subaccount-list';
import { NotFound } from '../../platform/errors';
import { listManagedDomains } from '../domains/managed-domains';
import { daysOf, getDomainState, type PostmasterDayItem } from './postmaster-store';

/** A verified managed domain of one of the accounts a request covers: what the fetch works on. */
export interface DomainInScope {
  accountId: string;
  name: string;
}

export interface RangeInput {
  timeRangeStart: number;
  timeRangeEnd: number;
  include_subaccounts?: boolean;
}

/** The UTC days a range of Unix seconds touches, as the stored days' `yyyy-mm-dd`. */
function daysIn(range: RangeInput): { fromDay: string; toDay: string } {
  const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
  return { fromDay: day(range.timeRangeStart), toDay: day(range.timeRangeEnd) };
}

export async function domainsInScope(accountId: string, includeSubaccounts: boolean | undefined): Promise<DomainInScope[]> {
  const accounts = await accountsCovered(accountId, includeSubaccounts);
  const lists = await Promise.all(accounts.map(async (id) => (await listManagedDomains(id)).filter((d) => d.status !== 'pending').map((d) => ({ accountId: id, name: d.name }))));
  return lists.flat().sort((a, b) => a.name.localeCompare(b.name) || a.accountId.localeCompare(b.accountId));
}

/** One domain in scope, or 404 `{"Description"}` as Mailgun's GPT service answers. */
export async function domainInScope(accountId: string, includeSubaccounts: boolean | undefined, name: string): Promise<DomainInScope> {
  const found = (await domainsInScope(accountId, includeSubaccounts)).find((d) => d.name === name);
  if (!found) throw new NotFound(`domain not found: ${name} is not a verified managed domain of this account (/v1/inboxready/domains)`).as('Description');
  return found;
}

/** The stored days of some domains within a range, by date then domain. */
export async function daysInScope(domains: readonly DomainInScope[], range: RangeInput): Promise<PostmasterDayItem[]> {
  const { fromDay, toDay } = daysIn(range);
  const days = (await Promise.all(domains.map((d) => daysOf(d.accountId, d.name, fromDay, toDay)))).flat();
  return days.sort((a, b) => a.day.localeCompare(b.day) || a.domain.localeCompare(b.domain));
}

export const domainState = (domain: DomainInScope) => getDomainState(domain.accountId, domain.name);
