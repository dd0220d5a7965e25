import type { Resolver as DnsResolver } from 'node:dns/promises';
import { env } from './env';

export type LookupType = 'TXT' | 'MX' | 'CNAME';

/** What DNS said: the values, or `undefined` when the lookup itself failed (timeout, SERVFAIL). */
export type LookupResult = string[] | undefined;

// Answers that mean "there is no such record" rather than "we could not tell".
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'ENONAME']);

function resolver(): DnsResolver {
  // Loaded on the first lookup, not with the module: only verifying a domain asks DNS, and the
  // others should not load node:dns/promises at cold start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  const { Resolver } = require('node:dns/promises') as { Resolver: typeof DnsResolver };
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  const servers = env().DNS_SERVERS;
  if (servers) resolver.setServers(servers.split(',').map((s) => s.trim()).filter(Boolean));
  return resolver;
}

const normalizeHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** Looks a record up through the configured resolvers; TXT strings are joined as DNS splits them. */
export async function lookup(type: LookupType, name: string): Promise<LookupResult> {
  const r = resolver();
  try {
    switch (type) {
      case 'TXT':
        return (await r.resolveTxt(name)).map((chunks) => chunks.join(''));
      case 'MX':
        return (await r.resolveMx(name)).sort((a, b) => a.priority - b.priority).map((mx) => normalizeHost(mx.exchange));
      case 'CNAME':
        return (await r.resolveCname(name)).map(normalizeHost);
    }
  } catch (error) {
    if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '')) return [];
    return undefined;
  } finally {
    r.cancel();
  }
}

export function sameHost(a: string, b: string): boolean {
  return normalizeHost(a) === normalizeHost(b);
}

/** The PTR names of an address through the configured resolvers; empty when it has none or DNS did not answer. */
export async function reverseLookup(ip: string): Promise<string[]> {
  const r = resolver();
  try {
    return (await r.reverse(ip)).map(normalizeHost);
  } catch {
    return [];
  } finally {
    r.cancel();
  }
}
