import type { Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { getDomain } from 'tldts';
import { env } from '../../platform/env';
import { queryZone, type Blocklist, type Verdict } from './catalogue';

/** What asking one list about one subject gave: the verdict, and the list's TXT text when listed. */
export type Answer = { listed: true; codes: string[]; reasons: string[] } | { listed: false } | { error: string };

// NXDOMAIN (or an empty answer): the name is not on the list.
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'ENONAME']);

/** The resolvers blocklist lookups go through; none configured means no list can be asked. */
export function blocklistResolvers(): string[] {
  return (env().BLOCKLIST_RESOLVERS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

export const NO_RESOLVER = 'no resolver configured (BLOCKLIST_RESOLVERS): public lists refuse queries from shared resolvers, so none is assumed';

let shared: { servers: string; resolver: DnsResolver } | undefined;

/**
 * A resolver on the configured servers: ~2 s per try and one retry, so a list that does not
 * answer costs a check about 4 s, never a listing. One per process and server list: a warm
 * Lambda's next check (and a run's many, locally) reuses its channel.
 */
export function blocklistResolver(servers = blocklistResolvers()): DnsResolver {
  const key = servers.join(',');
  if (shared?.servers === key) return shared.resolver;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the checks only, not by the API area
  const { Resolver } = require('node:dns/promises') as { Resolver: typeof DnsResolver };
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers(servers);
  shared = { servers: key, resolver };
  return resolver;
}

/** `d.c.b.a` for IPv4, 32 reversed nibbles for IPv6 (RFC 5782 section 2.4). */
export function reversedIp(ip: string): string {
  if (isIP(ip) === 4) return ip.split('.').reverse().join('.');
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const full = [...groups(head), ...Array<string>(ip.includes('::') ? missing : 0).fill('0'), ...groups(tail)].map((g) => g.padStart(4, '0')).join('');
  return [...full].reverse().join('.');
}

/** The names a subject is looked up under on a list: an IP reversed; a domain as is and, or only, its registered domain. */
export function namesFor(list: Blocklist, subject: string): string[] {
  if (list.kind === 'ip') return [reversedIp(subject)];
  const registered = getDomain(subject) ?? subject;
  if (list.organizationalOnly) return [registered];
  return registered === subject ? [subject] : [subject, registered];
}

async function resolveA(resolver: DnsResolver, name: string): Promise<string[] | { error: string }> {
  try {
    return await resolver.resolve4(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (ABSENT.has(code)) return [];
    // SERVFAIL, REFUSED, a timeout: the list could not be asked, which says nothing about the subject.
    return { error: `DNS ${code} for ${name}` };
  }
}

async function txtOf(resolver: DnsResolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    // The reason text is a courtesy: a listing stands without it.
    return [];
  }
}

/**
 * What a listing's TXT reasons may be taken from instead of asking again: the last answer's, when
 * its codes are the same (lists' query budgets are small, and the text changes with the listing);
 * `none` when only the verdict matters (a self-test).
 */
export type KnownReasons = { codes: readonly string[]; reasons: readonly string[] } | 'none' | undefined;

/** The same strings in the same order (absent counts as none). */
export const sameStrings = (a: readonly string[] = [], b: readonly string[] = []) => a.length === b.length && a.every((value, i) => value === b[i]);

/** Asks one list about one name; listed, clear, or an error that must not change any state. */
async function askName(resolver: DnsResolver, list: Blocklist, name: string, dqsKey: string | undefined, known?: KnownReasons): Promise<Answer> {
  const query = `${name}.${queryZone(list, dqsKey)}`;
  const addresses = await resolveA(resolver, query);
  if (!Array.isArray(addresses)) return addresses;
  const verdict: Verdict = list.decode(addresses);
  if (!('listed' in verdict)) return verdict;
  if (!verdict.listed) return verdict;
  if (known === 'none') return { listed: true, codes: verdict.codes, reasons: [] };
  if (known && sameStrings(known.codes, verdict.codes)) return { listed: true, codes: verdict.codes, reasons: [...known.reasons] };
  return { listed: true, codes: verdict.codes, reasons: await txtOf(resolver, query) };
}

/** Asks one list about a subject under each of its names: listed if any is, an error if any name could not be asked and none is listed. */
export async function askList(resolver: DnsResolver, list: Blocklist, subject: string, dqsKey: string | undefined, known?: KnownReasons): Promise<Answer> {
  const names = namesFor(list, subject);
  // Reasons are reused only for a one-name list: with two names the codes of each are not kept apart.
  if (names.length === 1) return askName(resolver, list, names[0]!, dqsKey, known);
  const answers = await Promise.all(names.map((name) => askName(resolver, list, name, dqsKey)));
  const listed = answers.filter((a): a is Extract<Answer, { listed: true }> => 'listed' in a && a.listed);
  if (listed.length) return { listed: true, codes: listed.flatMap((a) => a.codes), reasons: [...new Set(listed.flatMap((a) => a.reasons))] };
  return answers.find((a) => 'error' in a) ?? { listed: false };
}

/**
 * RFC 5782's self-test of a list, once per run before it is trusted: its test name must be
 * listed and `invalid` (or 127.0.0.1) must not. Undefined when the list passed, else why not.
 */
export async function selfTest(resolver: DnsResolver, list: Blocklist, dqsKey: string | undefined): Promise<string | undefined> {
  const [positive, negative] = await Promise.all([askName(resolver, list, list.testListed, dqsKey, 'none'), askName(resolver, list, list.testClear, dqsKey, 'none')]);
  if ('error' in positive) return `self-test: ${positive.error}`;
  if ('error' in negative) return `self-test: ${negative.error}`;
  if (!positive.listed) return `self-test: the list does not list its test point ${list.testListed}`;
  if (negative.listed) return `self-test: the list lists ${list.testClear}, which it must not`;
  return undefined;
}
