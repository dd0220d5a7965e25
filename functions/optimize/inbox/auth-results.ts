/**
 * What the receiving provider said about a copy, read from the headers it added: its own
 * Authentication-Results (RFC 8601) for SPF, DKIM and DMARC, and Microsoft's spam verdicts
 * (SCL, BCL and the Forefront category). Only the receiver's verdicts count, never the sender's.
 */
export type AuthVerdict = 'pass' | 'fail' | 'missing/not-set';

export interface AuthSummary {
  spf: AuthVerdict;
  dkim: AuthVerdict;
  dmarc: AuthVerdict;
}

export interface MsSpam {
  scl?: number;
  bcl?: number;
  category?: string;
}

const NOT_SET: AuthSummary = { spf: 'missing/not-set', dkim: 'missing/not-set', dmarc: 'missing/not-set' };

/** RFC 8601 results that mean the check failed; `none`, `neutral`, `temperror` and the like say it was not decided. */
const FAILING = new Set(['fail', 'softfail', 'permerror', 'policy']);

function verdict(result: string | undefined): AuthVerdict {
  if (!result) return 'missing/not-set';
  if (result === 'pass') return 'pass';
  return FAILING.has(result) ? 'fail' : 'missing/not-set';
}

/** Drops RFC 5322 comments, which may hold `;` and `=` of their own. */
const withoutComments = (value: string) => value.replace(/\((?:[^()\\]|\\.)*\)/g, ' ');

/** One Authentication-Results value: its authserv-id and each method's first result. */
export function parseAuthenticationResults(value: string): { authservId: string; results: Map<string, string> } {
  const [head = '', ...parts] = withoutComments(value.replace(/\r?\n[ \t]+/g, ' ')).split(';');
  const results = new Map<string, string>();
  for (const part of parts) {
    const match = /^\s*([a-z0-9_-]+)(?:\/[0-9]+)?\s*=\s*([a-z]+)/i.exec(part);
    if (match && !results.has(match[1]!.toLowerCase())) results.set(match[1]!.toLowerCase(), match[2]!.toLowerCase());
  }
  return { authservId: head.trim().split(/\s+/)[0]?.toLowerCase() ?? '', results };
}

/**
 * The receiver's verdicts: from the topmost Authentication-Results (receivers prepend theirs, and
 * a sender's own copy of the header sits below) whose authserv-id is not the sending platform's.
 */
export function receiverAuthResults(headers: ReadonlyArray<{ key: string; value: string }>, ignoreAuthservIds: readonly string[] = []): AuthSummary {
  const ignored = new Set(ignoreAuthservIds.map((id) => id.toLowerCase()));
  for (const header of headers) {
    if (header.key.toLowerCase() !== 'authentication-results') continue;
    const parsed = parseAuthenticationResults(header.value);
    if (ignored.has(parsed.authservId)) continue;
    return { spf: verdict(parsed.results.get('spf')), dkim: verdict(parsed.results.get('dkim')), dmarc: verdict(parsed.results.get('dmarc')) };
  }
  return NOT_SET;
}

/** Microsoft's verdicts: `SCL:n` and `CAT:x` in X-Forefront-Antispam-Report, `BCL:n` in X-Microsoft-Antispam. */
export function microsoftSpam(headers: ReadonlyArray<{ key: string; value: string }>): MsSpam | undefined {
  const find = (name: string) => headers.find((h) => h.key.toLowerCase() === name)?.value;
  const forefront = find('x-forefront-antispam-report');
  const antispam = find('x-microsoft-antispam');
  if (!forefront && !antispam) return undefined;
  const field = (text: string | undefined, name: string) => (text ? new RegExp(`(?:^|;)\\s*${name}:([^;]*)`, 'i').exec(text)?.[1]?.trim() : undefined);
  const number = (raw: string | undefined) => (raw !== undefined && /^-?\d+$/.test(raw) ? Number(raw) : undefined);
  const out: MsSpam = {};
  const scl = number(field(forefront, 'SCL'));
  const bcl = number(field(antispam, 'BCL')) ?? number(field(forefront, 'BCL'));
  const category = field(forefront, 'CAT');
  if (scl !== undefined) out.scl = scl;
  if (bcl !== undefined) out.bcl = bcl;
  if (category) out.category = category;
  return out;
}
