import { domainToASCII } from 'node:url';
import addressparser from 'nodemailer/lib/addressparser';
import { nameHolders } from '../domains/domain-store';
import { env } from '../platform/env';
import { Forbidden } from '../platform/errors';
import { allHeaderValues } from './mime-headers';

/**
 * Which domains a message may claim to be from. Mailgun lets a domain send with any From address
 * and signs with the sending domain; but every tenant here shares one SES account, and SES signs
 * with the identity that matches the From domain (and takes Sender and Return-Path as identities
 * too). So a From, Sender or Return-Path whose domain, or a parent of it, is a domain another
 * account holds on the platform is refused: it would go out signed with that account's key. A
 * domain nobody here holds may still be named: no key of any tenant matches it.
 */

/** The header fields whose addresses SES requires to be its verified identities, and signs or bounces for. */
export const SENDER_FIELDS = ['from', 'sender', 'return-path'] as const;

/** Comments and folding whitespace an address may carry around its domain (RFC 5322 CFWS). */
const stripComments = (value: string) => {
  let out = value;
  for (let previous = ''; previous !== out; ) [previous, out] = [out, out.replace(/\([^()]*\)/g, '')];
  return out.replace(/@\s+/g, '@');
};

/** Quoted strings (display names): what they hold names no author. */
const stripQuoted = (value: string) => value.replace(/"(?:[^"\\]|\\.)*"/g, '""');

const AT_DOMAIN = /@\[?([^\s<>"'(),;:@[\]\\]+)/g;

function normalizedDomain(raw: string): string | undefined {
  const name = raw.toLowerCase().replace(/\.+$/, '');
  if (!name.includes('.')) return undefined;
  return domainToASCII(name) || name;
}

/**
 * Every domain the values (header fields as written) name, read generously: the addresses a parser
 * finds, and anything after an `@` outside quoted display names and comments, so a malformed field
 * that another reader would take differently names no domain this one missed.
 */
export function namedDomains(values: readonly string[]): string[] {
  const found = new Set<string>();
  for (const value of values) {
    for (const entry of addressparser(value, { flatten: true }) as Array<{ address?: string }>) {
      const domain = normalizedDomain(entry.address?.split('@').pop() ?? '');
      if (domain) found.add(domain);
    }
    for (const match of stripComments(stripQuoted(value)).matchAll(AT_DOMAIN)) {
      const domain = normalizedDomain(match[1]!);
      if (domain) found.add(domain);
    }
  }
  return [...found];
}

/** A domain and each parent of it that is still a name of two labels or more. */
export function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/**
 * The first domain among those the values name that another account holds, itself or through a
 * parent; undefined when every one is the account's own or nobody's. `own` are names the caller
 * knows the account holds (its sending domain), which need no lookup.
 */
export async function foreignSenderDomain(accountId: string, values: readonly string[], own: readonly string[] = []): Promise<string | undefined> {
  const named = namedDomains(values);
  // The sandboxes' parent is reserved (createDomain refuses it): nobody can hold it.
  const unclaimable = env().SANDBOX_DOMAIN;
  const candidates = [...new Set(named.flatMap(selfAndParents))].filter((name) => !own.includes(name) && name !== unclaimable);
  if (!candidates.length) return undefined;
  const holders = await nameHolders(candidates);
  return named.find((domain) => selfAndParents(domain).some((name) => (holders.get(name) ?? accountId) !== accountId));
}

export const foreignSenderMessage = (domain: string) =>
  `The From, Sender or Return-Path address's domain ${domain} belongs to another account on this platform: send from a domain of your own`;

/** Refuses (403) a message whose From, Sender or Return-Path names a domain of another account. */
export async function assertOwnSender(accountId: string, sendingDomain: string, mime: Buffer): Promise<void> {
  const foreign = await foreignSenderDomain(accountId, allHeaderValues(mime, SENDER_FIELDS), [sendingDomain]);
  if (foreign) throw new Forbidden(foreignSenderMessage(foreign));
}
