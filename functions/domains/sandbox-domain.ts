import { env } from '../platform/env';
import { objectId, randomHex } from '../platform/ids';
import { claimName, listDomainItems, saveNewDomain, type DomainItem } from './domain-store';

// Apart from domains.ts so that making an account (subaccounts, the primary account's bootstrap)
// needs only this: the rest of the area (SES identities, DKIM keys, certificate release) stays out
// of those Lambdas.

/** What every new domain, sandbox or custom, starts with unless told otherwise. */
export const DEFAULT_MESSAGE_TTL = 3 * 24 * 3600;
export const DEFAULT_WEB_PREFIX = 'email';
export const DEFAULT_MAILFROM_PREFIX = 'bounce';
export const DEFAULT_DKIM_SELECTOR = 's1';

/**
 * Every account's sandbox: a subdomain of the platform's sandbox domain, whose one SES identity
 * (verified by the operator) covers all of them, so it is active from the start.
 */
export async function createSandboxDomain(accountId: string): Promise<DomainItem> {
  const name = `sandbox${randomHex(16)}.${env().SANDBOX_DOMAIN}`;
  if (!(await claimName(name, accountId))) throw new Error('sandbox name collision');
  const domain: DomainItem = {
    accountId,
    name,
    domainId: objectId(),
    type: 'sandbox',
    state: 'active',
    createdAt: new Date().toISOString(),
    isDisabled: false,
    requireTls: false,
    skipVerification: false,
    wildcard: false,
    spamAction: 'disabled',
    webPrefix: DEFAULT_WEB_PREFIX,
    webScheme: 'http',
    useAutomaticSenderSecurity: false,
    encryptIncomingMessage: false,
    messageTtl: DEFAULT_MESSAGE_TTL,
    mailfromHost: `${DEFAULT_MAILFROM_PREFIX}.${name}`,
    dkimAuthority: name,
    dkimSelector: DEFAULT_DKIM_SELECTOR,
    dnsChecks: {},
  };
  await saveNewDomain(domain);
  return domain;
}

/** The account's sandbox domain: every account is made with one, and it cannot be deleted. */
export async function sandboxDomainOf(accountId: string): Promise<DomainItem | undefined> {
  return (await listDomainItems(accountId)).find((domain) => domain.type === 'sandbox');
}
