import { accountIsOpen } from '../accounts/account-status';
import { accountAllowsSource } from '../accounts/ip-allowlist';
import { randomBytes } from 'node:crypto';
import { byteLength, MAX_DOMAIN_NAME_BYTES } from '../data/key-limits';
import { claimAttempt, forgiveAttempt, slowdown, subjectsOf } from '../platform/auth-throttle';
import { mapLimit } from '../platform/concurrency';
import { BadRequest, NotFound } from '../platform/errors';
import { hashPassword, verifyPassword } from '../platform/secrets';
import { credentialsOf, domainHolder, findCredential, insertCredential, removeCredential, saveCredential, setPasswordHash, type CredentialItem } from './credential-store';
import type { DomainItem } from '../domains/domain-store';

/**
 * SMTP credentials (contract §12.2): a login (an address at the domain) and a password, which
 * only ever exists as a scrypt hash here. They serve the SMTP submission service (functions/smtp),
 * which finds the domain, and so the account, from the login alone.
 */

/**
 * Bounds on a new SMTP password (a login's, or the domain's smtp_password). SMTP AUTH has no
 * second factor, so the password is single-factor, and NIST SP 800-63B-4 (2025, section 3.1.1.2)
 * asks 15 characters of those; Mailgun's API documents 5. Passwords stored before keep working:
 * only new ones are checked. The maximum stays Mailgun's 32, which its clients expect.
 */
const PASSWORD_MIN_LENGTH = 15;
const PASSWORD_MAX_LENGTH = 32;
/** The rule, as refusals state it. */
const PASSWORD_RULE = `It must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters (an SMTP password is a single factor: NIST SP 800-63B-4 asks at least ${PASSWORD_MIN_LENGTH}).`;
/**
 * Logins one request may create. Each password is hashed with scrypt (tens of milliseconds of
 * CPU, on purpose), so this bounds what one request costs.
 */
const MAX_LOGINS_PER_REQUEST = 25;

/** The characters RFC 5322 allows in a dot-atom local part. */
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const MAX_LOCAL_PART_LENGTH = 64;

/**
 * A login as stored: the full address in lower case. Mailgun takes a local part or an address at
 * the domain itself; anything else is refused.
 */
export function loginAddress(domain: string, login: string, field = 'login'): string {
  const value = login.trim().toLowerCase();
  const at = value.lastIndexOf('@');
  const local = at < 0 ? value : value.slice(0, at);
  if (at >= 0 && value.slice(at + 1) !== domain) throw new BadRequest(`Invalid parameter '${field}': ${login} is not an address of the domain ${domain}`);
  if (!local || local.length > MAX_LOCAL_PART_LENGTH || !LOCAL_PART.test(local)) {
    throw new BadRequest(`Invalid parameter '${field}': ${login} is not a valid login (a local part of at most ${MAX_LOCAL_PART_LENGTH} characters, or an address at ${domain})`);
  }
  return `${local}@${domain}`;
}

/**
 * What is wrong with a new SMTP password, if anything: its length in characters (Unicode code
 * points, as NIST counts them) out of bounds, or control characters, which SMTP AUTH could not carry.
 */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `Password is too short. ${PASSWORD_RULE}`;
  if (length > PASSWORD_MAX_LENGTH) return `Password is too long. ${PASSWORD_RULE}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(password)) return 'Password must not contain control characters';
  return undefined;
}

export function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new BadRequest(problem);
}

/** 144 random bits, 24 characters of base64url: within Mailgun's 32. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export const GENERATED_NOTE = 'Store the generated password now: it is not shown again.';

export interface NewCredentials {
  /** Logins as given (local parts or addresses), one credential each. */
  logins: string[];
  /** Passwords for the logins in order; a login without one gets a generated password. */
  passwords: string[];
  system: boolean;
}

export interface CreatedCredentials {
  count: number;
  /** The generated passwords by login: shown once, in the reply. */
  generated: Record<string, string>;
}

function newCredential(domain: DomainItem, login: string, passwordHash: string, system: boolean, now: string): CredentialItem {
  return { accountId: domain.accountId, domain: domain.name, login, mailbox: login, passwordHash, system, createdAt: now };
}

/**
 * Creates every credential or none: logins and passwords are checked, and the logins found free,
 * before anything is written; one taken meanwhile undoes the others.
 */
export async function createCredentials(domain: DomainItem, spec: NewCredentials): Promise<CreatedCredentials> {
  if (spec.logins.length === 0) throw new BadRequest("Parameter 'login' is missing");
  if (spec.logins.length > MAX_LOGINS_PER_REQUEST) throw new BadRequest(`At most ${MAX_LOGINS_PER_REQUEST} logins may be created in one request`);
  if (spec.passwords.length > spec.logins.length) throw new BadRequest("There are more values of 'password' than of 'login'");
  const logins = spec.logins.map((login) => loginAddress(domain.name, login));
  const repeated = logins.find((login, i) => logins.indexOf(login) !== i);
  if (repeated) throw new BadRequest(`Invalid parameter 'login': ${repeated} is given twice`);
  spec.passwords.forEach(checkPassword);
  const existing = await mapLimit(logins, 8, (login) => findCredential(domain.accountId, domain.name, login));
  const taken = existing.find((credential) => credential !== undefined);
  if (taken) throw new BadRequest(`Credentials for ${taken.login} already exist`);

  const generated: Record<string, string> = {};
  const passwords = logins.map((login, i) => spec.passwords[i] ?? (generated[login] = generatePassword()));
  const hashes = await mapLimit(passwords, 4, hashPassword);
  const now = new Date().toISOString();
  const written: CredentialItem[] = [];
  for (const [i, login] of logins.entries()) {
    const credential = newCredential(domain, login, hashes[i]!, spec.system, now);
    if (!(await insertCredential(credential))) {
      for (const done of written) await removeCredential(done).catch(() => undefined);
      throw new BadRequest(`Credentials for ${login} already exist`);
    }
    written.push(credential);
  }
  return { count: written.length, generated };
}

/** A new password for an existing login (given, or generated and returned once). */
export async function changePassword(domain: DomainItem, login: string, password: string | undefined): Promise<{ login: string; generated?: string }> {
  const address = loginAddress(domain.name, login, 'spec');
  if (password !== undefined) checkPassword(password);
  const chosen = password ?? generatePassword();
  if (!(await setPasswordHash({ accountId: domain.accountId, domain: domain.name, login: address }, await hashPassword(chosen)))) {
    throw new NotFound('Credentials not found');
  }
  return password === undefined ? { login: address, generated: chosen } : { login: address };
}

/** Deletes one login; a system mailbox (postmaster) stays. Answers the login deleted. */
export async function deleteCredential(domain: DomainItem, login: string): Promise<string> {
  const address = loginAddress(domain.name, login, 'spec');
  const credential = await findCredential(domain.accountId, domain.name, address);
  if (!credential) throw new NotFound('Credentials not found');
  if (credential.system) throw new BadRequest(`Cannot delete system mailbox: ${address}`);
  await removeCredential(credential);
  return address;
}

/** Deletes every login of the domain but its system mailboxes; answers how many went. */
export async function deleteAllCredentials(domain: DomainItem): Promise<number> {
  const deletable = (await credentialsOf(domain.accountId, domain.name)).filter((credential) => !credential.system);
  await mapLimit(deletable, 8, removeCredential);
  return deletable.length;
}

/** Every credential of a domain, deleted with it (system ones too). */
export async function removeDomainCredentials(accountId: string, domain: string): Promise<void> {
  await mapLimit(await credentialsOf(accountId, domain), 8, removeCredential);
}

export async function listCredentials(domain: DomainItem, skip: number, limit: number): Promise<{ total: number; items: CredentialItem[] }> {
  const all = await credentialsOf(domain.accountId, domain.name);
  return { total: all.length, items: all.slice(skip, skip + limit) };
}

/**
 * The domain's system login (postmaster@domain), as the domain's smtp_password sets it: created
 * with that password, or given it.
 */
export async function setPostmasterPassword(accountId: string, domain: string, password: string): Promise<void> {
  const login = `postmaster@${domain}`;
  const passwordHash = await hashPassword(password);
  if (await setPasswordHash({ accountId, domain, login }, passwordHash)) return;
  await saveCredential({ accountId, domain, login, mailbox: login, passwordHash, system: true, createdAt: new Date().toISOString() });
}

/** What an SMTP AUTH comes to: who signed in, or why not and how the refusal is paced. */
export type SmtpSignIn =
  | { identity: SmtpIdentity }
  /** A wrong login or password: `slowdown` times the usual pause before saying so. */
  | { refused: 'invalid'; slowdown: number }
  /** Too many failures of the login or from the address: not checked at all. */
  | { refused: 'locked'; retryAfterSeconds: number };

/**
 * SMTP AUTH with guessing bounded across connections (functions/platform/auth-throttle.ts): the
 * attempt is counted against the login and the client's address before the password is checked,
 * and given back when it was right.
 */
export async function signIn(login: string, password: string, remoteAddress?: string): Promise<SmtpSignIn> {
  const subjects = subjectsOf('smtp', login, remoteAddress);
  const claim = await claimAttempt(subjects);
  if (!claim.granted) return { refused: 'locked', retryAfterSeconds: claim.retryAfterSeconds };
  const identity = await authenticate(login, password, remoteAddress);
  if (!identity) return { refused: 'invalid', slowdown: slowdown(claim.failures) };
  await forgiveAttempt(subjects, claim.nonce);
  return { identity };
}

/** Who a successful SMTP AUTH is: the login, its domain and the account holding it. */
export interface SmtpIdentity {
  accountId: string;
  domain: string;
  login: string;
}

let decoyHash: Promise<string> | undefined;

/**
 * Checks an SMTP login and password. An unknown login costs the same scrypt as a known one, so
 * the time taken does not tell which logins exist.
 */
export async function authenticate(login: string, password: string, remoteAddress?: string): Promise<SmtpIdentity | undefined> {
  const address = login.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  const domain = at > 0 ? address.slice(at + 1) : '';
  let credential: CredentialItem | undefined;
  if (domain && byteLength(domain) <= MAX_DOMAIN_NAME_BYTES && at <= MAX_LOCAL_PART_LENGTH) {
    const accountId = await domainHolder(domain);
    if (accountId) credential = await findCredential(accountId, domain, address);
  }
  decoyHash ??= hashPassword(generatePassword());
  const valid = await verifyPassword(password, credential?.passwordHash ?? (await decoyHash));
  // A disabled or deleted subaccount's logins are refused as its API keys are, and a login used
  // from outside the account's IP allowlist (two reads per AUTH, once per connection).
  if (!valid || !credential || !(await accountIsOpen(credential.accountId))) return undefined;
  if (!(await accountAllowsSource(credential.accountId, remoteAddress))) return undefined;
  return { accountId: credential.accountId, domain: credential.domain, login: credential.login };
}
