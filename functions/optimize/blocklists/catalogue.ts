/**
 * The blocklists monitored (optimize contract 2.2): live DNSBLs for IPs and RHSBLs for domains,
 * with what their answers mean. SORBS is absent on purpose: it was shut down in 2024 and its
 * zones hold nothing. Codes come from each operator's published documentation.
 */
export type SubjectKind = 'ip' | 'domain';

/** What one A answer of a list says. */
export type Verdict = { listed: true; codes: string[] } | { listed: false } | { error: string };

export interface Blocklist {
  /** The public zone, also the list's id in replies (`list`). */
  zone: string;
  name: string;
  kind: SubjectKind;
  /** Where a listing is looked up and removal asked for; `{subject}` is replaced. */
  lookupUrl: string;
  /** RFC 5782 test points: a name the list must list, and one it must not (before the zone). */
  testListed: string;
  testClear: string;
  /** Only the registered domain is listed (URI lists); DBL lists exact names too. */
  organizationalOnly?: boolean;
  /** The zone to query with a Spamhaus DQS key; absent for other operators. */
  dqsZone?: (key: string) => string;
  decode(addresses: readonly string[]): Verdict;
}

const IN_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const lastOctet = (address: string) => Number(address.split('.')[3]);

/** An answer outside 127.0.0.0/8 is no list's code: a resolver rewriting NXDOMAIN, most likely. */
const outsideLoopback = (name: string, addresses: readonly string[]): Verdict | undefined => {
  const odd = addresses.find((a) => !IN_LOOPBACK.test(a));
  return odd ? { error: `${name} answered ${odd}, outside 127.0.0.0/8` } : undefined;
};

/** Spamhaus answers errors (typo, public resolver, too many queries, bad DQS key) in 127.255.255.0/24. */
function spamhausError(addresses: readonly string[]): Verdict | undefined {
  const error = addresses.find((a) => a.startsWith('127.255.255.'));
  if (!error) return undefined;
  const reasons: Record<string, string> = {
    '127.255.255.252': 'typo in the zone name',
    '127.255.255.254': 'query refused: sent through a public or unattributable resolver',
    '127.255.255.255': 'query refused: too many queries',
  };
  return { error: `Spamhaus answered ${error} (${reasons[error] ?? 'an error code'})` };
}

/** A list whose single listing code is 127.0.0.2, as most single-purpose DNSBLs answer. */
function singleCode(name: string): (addresses: readonly string[]) => Verdict {
  return (addresses) => outsideLoopback(name, addresses) ?? (addresses.length ? { listed: true, codes: [...addresses] } : { listed: false });
}

const ZEN_CODES: Record<string, string> = {
  '127.0.0.2': 'SBL',
  '127.0.0.3': 'CSS',
  '127.0.0.4': 'XBL',
  '127.0.0.5': 'XBL',
  '127.0.0.6': 'XBL',
  '127.0.0.7': 'XBL',
  '127.0.0.9': 'DROP',
  '127.0.0.10': 'PBL (ISP policy: this address should not send directly to mail servers)',
  '127.0.0.11': 'PBL (Spamhaus policy: this address should not send directly to mail servers)',
};

function decodeZen(addresses: readonly string[]): Verdict {
  const error = spamhausError(addresses);
  if (error) return error;
  const unknown = addresses.find((a) => !ZEN_CODES[a]);
  if (unknown) return { error: `Spamhaus ZEN answered ${unknown}, not a listing code` };
  return addresses.length ? { listed: true, codes: addresses.map((a) => `${a} ${ZEN_CODES[a]}`) } : { listed: false };
}

function decodeDbl(addresses: readonly string[]): Verdict {
  const error = spamhausError(addresses);
  if (error) return error;
  if (addresses.includes('127.0.1.255')) return { error: 'Spamhaus DBL answered 127.0.1.255 (an IP address was queried against a domain list)' };
  const odd = addresses.find((a) => !a.startsWith('127.0.1.'));
  if (odd) return { error: `Spamhaus DBL answered ${odd}, not a listing code` };
  const kind = (octet: number) =>
    ({ 2: 'spam domain', 4: 'phishing domain', 5: 'malware domain', 6: 'botnet C&C domain', 102: 'abused legit spam', 103: 'abused legit spammed redirector', 104: 'abused legit phish', 105: 'abused legit malware', 106: 'abused legit botnet C&C' })[octet] ?? 'listed';
  return addresses.length ? { listed: true, codes: addresses.map((a) => `${a} ${kind(lastOctet(a))}`) } : { listed: false };
}

function decodeUribl(addresses: readonly string[]): Verdict {
  const odd = outsideLoopback('URIBL', addresses);
  if (odd) return odd;
  // 127.0.0.1 is URIBL refusing the query (a public resolver, or over its free volume).
  if (addresses.includes('127.0.0.1')) return { error: 'URIBL answered 127.0.0.1 (query refused: public resolver or volume)' };
  const codes: string[] = [];
  for (const address of addresses) {
    const mask = lastOctet(address);
    if (mask & 2) codes.push(`${address} black`);
    if (mask & 8) codes.push(`${address} red`);
  }
  // Grey (4) is URIBL's "bulk sender, not spam" and is not a listing.
  return codes.length ? { listed: true, codes } : { listed: false };
}

function decodeSurbl(addresses: readonly string[]): Verdict {
  const odd = outsideLoopback('SURBL', addresses);
  if (odd) return odd;
  // SURBL, like URIBL, answers 127.0.0.1 to queries it will not serve (public resolvers).
  if (addresses.includes('127.0.0.1')) return { error: 'SURBL answered 127.0.0.1 (query refused: public resolver or volume)' };
  const names: Array<[number, string]> = [[8, 'PH'], [16, 'MW'], [64, 'ABUSE'], [128, 'CR']];
  const codes = addresses.flatMap((address) => names.filter(([bit]) => lastOctet(address) & bit).map(([, name]) => `${address} ${name}`));
  return codes.length ? { listed: true, codes } : { listed: false };
}

export const CATALOGUE: readonly Blocklist[] = [
  {
    zone: 'zen.spamhaus.org',
    name: 'Spamhaus ZEN',
    kind: 'ip',
    lookupUrl: 'https://check.spamhaus.org/results/?query={subject}',
    testListed: '2.0.0.127',
    testClear: '1.0.0.127',
    dqsZone: (key) => `${key}.zen.dq.spamhaus.net`,
    decode: decodeZen,
  },
  {
    zone: 'bl.spamcop.net',
    name: 'SpamCop',
    kind: 'ip',
    lookupUrl: 'https://www.spamcop.net/bl.shtml?{subject}',
    testListed: '2.0.0.127',
    testClear: '1.0.0.127',
    decode: singleCode('SpamCop'),
  },
  {
    zone: 'b.barracudacentral.org',
    name: 'Barracuda',
    kind: 'ip',
    lookupUrl: 'https://www.barracudacentral.org/lookups/lookup-reputation',
    testListed: '2.0.0.127',
    testClear: '1.0.0.127',
    decode: singleCode('Barracuda'),
  },
  {
    zone: 'dnsbl-1.uceprotect.net',
    name: 'UCEPROTECT Level 1',
    kind: 'ip',
    lookupUrl: 'https://www.uceprotect.net/en/rblcheck.php?ipr={subject}',
    testListed: '2.0.0.127',
    testClear: '1.0.0.127',
    decode: singleCode('UCEPROTECT'),
  },
  {
    zone: 'dbl.spamhaus.org',
    name: 'Spamhaus DBL',
    kind: 'domain',
    lookupUrl: 'https://check.spamhaus.org/results/?query={subject}',
    testListed: 'dbltest.com',
    testClear: 'invalid',
    dqsZone: (key) => `${key}.dbl.dq.spamhaus.net`,
    decode: decodeDbl,
  },
  {
    zone: 'multi.uribl.com',
    name: 'URIBL',
    kind: 'domain',
    lookupUrl: 'https://admin.uribl.com/?section=lookup',
    testListed: 'test.uribl.com',
    testClear: 'invalid',
    organizationalOnly: true,
    decode: decodeUribl,
  },
  {
    zone: 'multi.surbl.org',
    name: 'SURBL',
    kind: 'domain',
    lookupUrl: 'https://www.surbl.org/surbl-analysis',
    testListed: 'test.surbl.org',
    testClear: 'invalid',
    organizationalOnly: true,
    decode: decodeSurbl,
  },
];

export const listsFor = (kind: SubjectKind, catalogue: readonly Blocklist[] = CATALOGUE) => catalogue.filter((list) => list.kind === kind);

export const findList = (zone: string) => CATALOGUE.find((list) => list.zone === zone);

/** The zone a list is queried at: its DQS zone when a Spamhaus key is configured. */
export const queryZone = (list: Blocklist, dqsKey: string | undefined) => (dqsKey && list.dqsZone ? list.dqsZone(dqsKey) : list.zone);

/** The `comments` of a listing: where to look it up and ask for removal, then what the list's TXT record says. */
export const commentsFor = (list: Blocklist, subject: string, reasons: readonly string[]) => [list.lookupUrl.replace('{subject}', encodeURIComponent(subject)), ...reasons];
