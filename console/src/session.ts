import { useEffect, useState } from 'preact/hooks';
import { grants, roles, type Access, type Role } from '../../functions/platform/access';
import { ApiError, call, type Credentials } from './api';
import type { ConsoleConfig, RegionConfig } from './config';

/**
 * Who is signed in, per region. Only one-day web keys are kept in sessionStorage; a key that
 * cannot be exchanged for one (the API lets only admin keys create keys) is held in memory for
 * this page's life and never stored.
 */
export interface RegionSession {
  secret: string;
  /** The web key's id, to delete it on sign-out; absent for a key held in memory. */
  keyId?: string;
  role: Role;
  /** True when the entered key itself is used (held in memory only): it was not exchanged. */
  inMemory: boolean;
  email?: string;
  /** The user the key belongs to (web keys name one). */
  userId?: string;
  /** The account the key belongs to (the primary account acting on its subaccounts). */
  accountId?: string;
}

/** The subaccount every call acts on behalf of (`X-Mailgun-On-Behalf-Of`), when one is chosen. */
export interface Acting {
  id: string;
  name: string;
}

interface State {
  config?: ConsoleConfig;
  sessions: Record<string, RegionSession>;
  region: string;
  /** The domain picked on the pages that act on one domain, remembered while signed in. */
  domain?: string;
  /** The subaccount chosen in the header's account switcher; none means the key's own account. */
  acting?: Acting;
  /** Why the user was signed out, shown on the sign-in form. */
  notice?: string;
}

const STORAGE_KEY = 'mailplane.console';

let state: State = { sessions: {}, region: 'us' };
const listeners = new Set<() => void>();

function persist(): void {
  const stored = Object.fromEntries(Object.entries(state.sessions).filter(([, s]) => !s.inMemory));
  if (!Object.keys(stored).length) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ sessions: stored, region: state.region, domain: state.domain, acting: state.acting }));
}

function update(change: Partial<State>): void {
  state = { ...state, ...change };
  persist();
  listeners.forEach((listener) => listener());
}

export function initState(config: ConsoleConfig): void {
  let saved: Partial<State>;
  try {
    saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<State>;
  } catch {
    saved = {};
  }
  const known = new Set(config.regions.map((r) => r.id));
  const sessions = Object.fromEntries(Object.entries(saved.sessions ?? {}).filter(([id, s]) => known.has(id) && roles.includes(s.role)));
  const region = saved.region && known.has(saved.region) ? saved.region : config.region;
  const acting = saved.acting && typeof saved.acting.id === 'string' && typeof saved.acting.name === 'string' ? saved.acting : undefined;
  state = { config, sessions, region, domain: saved.domain, acting };
}

export function useAppState(): State {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return state;
}

export function currentRegion(): RegionConfig {
  const regions = state.config!.regions;
  return regions.find((r) => r.id === state.region) ?? regions[0]!;
}

export function currentSession(): RegionSession | undefined {
  return state.sessions[state.region];
}

/** The API and key of the region in view; pages are only shown while there is one. */
export function credentials(): Credentials {
  const session = currentSession();
  if (!session) throw new Error('Not signed in');
  return { api: currentRegion().api, secret: session.secret, onBehalfOf: state.acting?.id };
}

/** The domain picked on the pages that act on one domain, if one is. */
export function currentDomain(): string | undefined {
  return state.domain;
}

/** The subaccount acted on, if any. */
export function currentActing(): Acting | undefined {
  return state.acting;
}

/**
 * Switches every page to act on behalf of a subaccount (or back to the key's own account with
 * none). The domain picked belongs to the account left, so it is forgotten.
 */
export function setActing(acting: Acting | undefined): void {
  update({ acting, domain: undefined });
}

/**
 * The headers Mailgun asks of a DIPP edit or delete: the account acted on, who asks, and the
 * client (the contract's X-Service-* headers).
 */
export function serviceHeaders(): Record<string, string> {
  const session = currentSession();
  return {
    'X-Service-Account-Id': state.acting?.id ?? session?.accountId ?? '',
    'X-Service-Requestor': session?.email ?? 'console',
    'X-Service-Requestor-Client': 'mailplane-console',
  };
}

export function can(access: Access): boolean {
  const session = currentSession();
  return session ? grants[session.role].includes(access) : false;
}

export function setRegion(id: string): void {
  update({ region: id, domain: undefined, acting: undefined });
}

export function setDomain(domain: string | undefined): void {
  update({ domain });
}

interface User {
  id: string;
  email: string;
  role: Role;
  account_id?: string;
}

interface CreatedKey {
  id: string;
  secret: string;
  role: Role;
}

/**
 * The address a web key records as its requestor (the API requires one). A bootstrapped account's
 * owner has none: RFC 2606's `.invalid` names that user without claiming a mailbox.
 */
function requestorOf(user: User): string {
  return user.email || `${user.id}@users.mailplane.invalid`;
}

/**
 * Signs in to one region with the entered key: the user it belongs to (GET /v5/users/me), then a
 * web key for that user with the key's role (only admin keys may create keys, so a key that can
 * do so is an admin key and its web key is too).
 */
async function signInRegion(region: RegionConfig, entered: string): Promise<RegionSession> {
  const asEntered: Credentials = { api: region.api, secret: entered };
  let user: User | undefined;
  try {
    user = await call<User>(asEntered, 'GET', '/v5/users/me');
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
  }
  if (user) {
    try {
      const key = await call<CreatedKey>(asEntered, 'POST', '/v1/keys', {
        form: { kind: 'web', role: 'admin', user_id: user.id, email: requestorOf(user), description: 'Mailplane console sign-in' },
      });
      return { secret: key.secret, keyId: key.id, role: key.role, inMemory: false, email: requestorOf(user), userId: user.id, accountId: user.account_id };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 403) throw error;
    }
  }
  return { secret: entered, role: user && roles.includes(user.role) ? user.role : 'basic', inMemory: true, email: user?.email, userId: user?.id, accountId: user?.account_id };
}

function signInError(error: unknown): string {
  // A refusal that says more than Mailgun's bare "Forbidden" (the IP allowlist, say) is shown as it came.
  if (error instanceof ApiError && error.status === 401) return error.message && error.message !== 'Forbidden' ? `That API key was not accepted: ${error.message.replace(/^Forbidden: /, '')}.` : 'That API key was not accepted.';
  if (error instanceof ApiError && error.status === 403) return `This key cannot read the account (${error.message}). Sign in with a key whose role can read.`;
  if (error instanceof ApiError) return error.message;
  return `The API could not be reached: ${(error as Error).message}`;
}

/**
 * Signs in to the region in view, and to the other regions the same key opens (their failures
 * only leave those regions signed out). The entered key is not kept once this returns.
 */
export async function signIn(entered: string): Promise<string | undefined> {
  const key = entered.trim();
  if (!key) return 'Enter an API key.';
  const config = state.config!;
  const here = currentRegion();
  let sessionHere: RegionSession;
  try {
    sessionHere = await signInRegion(here, key);
  } catch (error) {
    return signInError(error);
  }
  const sessions: Record<string, RegionSession> = { [here.id]: sessionHere };
  await Promise.all(
    config.regions
      .filter((r) => r.id !== here.id)
      .map(async (r) => {
        try {
          sessions[r.id] = await signInRegion(r, key);
        } catch {
          // That region does not know this key (or cannot be reached): it stays signed out.
        }
      }),
  );
  update({ sessions, notice: undefined, acting: undefined });
  return undefined;
}

/** Deletes the web keys this sign-in made, then forgets every session. */
export async function signOut(notice?: string): Promise<void> {
  const config = state.config!;
  const sessions = state.sessions;
  update({ sessions: {}, domain: undefined, acting: undefined, notice });
  await Promise.all(
    Object.entries(sessions).map(async ([id, session]) => {
      const region = config.regions.find((r) => r.id === id);
      if (!region || !session.keyId) return;
      try {
        await call({ api: region.api, secret: session.secret }, 'DELETE', `/v1/keys/${encodeURIComponent(session.keyId)}`);
      } catch {
        // An expired or already deleted key is gone either way.
      }
    }),
  );
}

/** A reply of 401 means the web key expired or was deleted: back to the sign-in form. */
export function handleAuthFailure(error: unknown): void {
  if (error instanceof ApiError && error.status === 401 && currentSession()) {
    const sessions = { ...state.sessions };
    delete sessions[state.region];
    update({ sessions, notice: 'Your session has ended. Sign in again.' });
  }
}
