import { useEffect } from 'preact/hooks';
import { call } from './api';
import { credentials, currentSession, setActing, useAppState } from './session';
import { useLoad } from './ui/load';

export interface Subaccount {
  id: string;
  name: string;
  status: 'open' | 'disabled' | 'closed';
  created_at: string;
  updated_at: string;
  features?: Record<string, { enabled?: boolean } | undefined>;
}

/** The primary account's subaccounts: always asked as the key's own account, never on behalf of one. */
export async function listSubaccounts(signal?: AbortSignal): Promise<Subaccount[]> {
  const reply = await call<{ subaccounts: Subaccount[]; total: number }>({ ...credentials(), onBehalfOf: undefined }, 'GET', '/v5/accounts/subaccounts', { query: { limit: 1000 }, signal });
  return reply.subaccounts;
}

const listeners = new Set<() => void>();

/** Tells the switcher the subaccounts changed (one was created, disabled or enabled). */
export function subaccountsChanged(): void {
  listeners.forEach((listener) => listener());
}

/**
 * The header's account switcher: the key's own account or one of its open subaccounts, which every
 * page then acts on behalf of (X-Mailgun-On-Behalf-Of). The account acted on is always shown. A
 * key of a subaccount (which has none of its own) sees its account named, without a choice.
 */
export function AccountSwitch() {
  const { acting, region } = useAppState();
  // A subaccount's key may not list subaccounts (it has none): it just names its account.
  const listing = useLoad(listSubaccounts, [region]);
  useEffect(() => {
    listeners.add(listing.reload);
    return () => void listeners.delete(listing.reload);
  }, [listing.reload]);
  const subaccounts = listing.data;
  const failed = Boolean(listing.error);
  const session = currentSession();
  const own = 'Primary account';
  if (failed || !subaccounts?.length) {
    return (
      <span class="account-now" data-testid="account-now">
        Account: {acting ? `${acting.name} (subaccount)` : failed ? (session?.accountId ?? 'the key’s own') : own}
        {acting ? (
          <button type="button" class="small" onClick={() => setActing(undefined)}>
            Back to primary account
          </button>
        ) : null}
      </span>
    );
  }
  const choices = subaccounts.filter((s) => s.status === 'open' || s.id === acting?.id);
  return (
    <div class={`account-switch${acting ? ' acting' : ''}`}>
      <label for="account-switch">Account</label>
      <select
        id="account-switch"
        value={acting?.id ?? ''}
        title={acting ? `Subaccount: ${acting.name}` : own}
        onChange={(e) => {
          const id = (e.target as HTMLSelectElement).value;
          const chosen = subaccounts.find((s) => s.id === id);
          setActing(chosen ? { id: chosen.id, name: chosen.name } : undefined);
        }}
      >
        <option value="">{own}</option>
        {choices.map((s) => (
          <option key={s.id} value={s.id}>
            Subaccount: {s.name}
            {s.status !== 'open' ? ` (${s.status})` : ''}
          </option>
        ))}
      </select>
    </div>
  );
}
