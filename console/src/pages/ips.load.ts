import { listSubaccounts } from '../account-switch';
import { call } from '../api';
import { credentials, currentActing } from '../session';

export interface IpList {
  items: string[];
  total_count: number;
  details?: Array<{ ip: string; is_on_warmup: boolean }>;
  assignable_to_pools: string[];
}

export interface Pool {
  pool_id: string;
  name: string;
  description: string;
  ips: string[];
  is_linked: boolean;
  is_inherited?: boolean;
}

/** The account's dedicated IPs that send (enabled), with their warm-up state. */
export function listIps(signal?: AbortSignal): Promise<IpList> {
  return call<IpList>(credentials(), 'GET', '/v3/ips', { query: { dedicated: true, enabled: true }, signal });
}

export function listPools(signal?: AbortSignal): Promise<{ ip_pools: Pool[] }> {
  return call<{ ip_pools: Pool[] }>(credentials(), 'GET', '/v3/ip_pools', { signal });
}

/** Only a primary account has subaccounts to delegate to; a subaccount's key may not list them. */
export function listDelegates(signal?: AbortSignal): Promise<unknown[] | undefined> {
  return currentActing() ? Promise.resolve(undefined) : listSubaccounts(signal).catch(() => undefined);
}

/** What the IPs page asks for as it opens: its IPs, pools, and who it may delegate to. */
export function loadIps(): void {
  void listIps();
  void listPools();
  void listDelegates();
}
