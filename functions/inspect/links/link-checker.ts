import type { AddressPolicy } from '../../webhooks/address-policy';
import { ConcurrencyGate } from '../common/concurrency-gate';
import { Findings, isBroken, type PlacedFindings } from '../common/finding';
import { FetchError, fetchOnce, type FetchOutcome, type TlsReport } from '../common/safe-fetch';
import { goDuration } from './go-duration';
import type { LinkInput } from './link-extractor';

export type { LinkInput };

/** A checked link as contract §1 shows it. */
export interface LinkResult extends PlacedFindings {
  url: string;
  status: 'Valid' | 'Invalid' | 'Error';
  status_code: number | null;
}

export interface CheckOptions {
  userAgent?: string | null;
  policy: AddressPolicy;
  /** Requests at once over the whole test, and to one host (contract §6.2: 8-16 per test, 2 per host). */
  concurrency?: number;
  perHost?: number;
  timeoutMs?: number;
  maxHops?: number;
  /** Roots trusted beside Node's own, for certificates a local CA issued. */
  ca?: readonly string[];
}

/** One request of a link's redirect chain. */
interface Hop {
  url: string;
  status_code: number;
  location: string | null;
  time_elapsed: string;
  ms: number;
  outcome: FetchOutcome;
}

const SLOW_MS = 2000;
const EXPIRING_DAYS = 14;
/**
 * Many servers answer HEAD with an error for a page their GET serves (404 from routers that know
 * GET routes only, 403 or 405 from those that refuse HEAD, 500 from ones that crash on it), so an
 * error answer to HEAD is confirmed with one GET before the link is called broken, as linkinator
 * does; lychee asks with GET alone. 429 is the exception: the server asked for fewer requests.
 */
const TOO_MANY_REQUESTS = 429;
const confirmWithGet = (status: number) => status >= 400 && status !== TOO_MANY_REQUESTS;
/** Merge fields of the common senders, filled in per recipient at send time: not URLs yet. */
const PLACEHOLDER = /\{\{.*\}\}|%recipient[._][^%]*%|%[a-z_]+%|\*\|[A-Z0-9_]+\|\*|\[\[.*\]\]|\{\$[\w.]+\}/i;

type Plan = { fetch: true; url: URL } | { fetch: false; finding: (f: Findings) => void; status?: LinkResult['status'] };

/** What to do with a link before any request: fetch it, or say why it is not a web link. */
function planFor(raw: string): Plan {
  const text = raw.trim();
  if (!text) return { fetch: false, status: 'Invalid', finding: (f) => f.fail('href_check', 'Empty Link', 'serious', 'The link has no address, so it goes nowhere.', 'Give the link the address it should open.') };
  if (PLACEHOLDER.test(text)) return { fetch: false, finding: (f) => f.inform('scheme_check', 'Template Placeholder', 'The link is a merge field filled in at send time; it is checked once sent, not here.', [{ url: text }]) };
  if (text.startsWith('#')) return { fetch: false, finding: (f) => f.inform('scheme_check', 'In-page Anchor', 'A link to a place in the same email: not fetched.', [{ anchor: text }]) };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (!scheme) {
    return {
      fetch: false,
      status: 'Invalid',
      finding: (f) => f.fail('href_check', 'Relative Link', 'serious', 'An email has no base address, so a relative link opens nothing in most clients.', 'Use an absolute https:// URL.', [{ url: text }]),
    };
  }
  if (scheme !== 'http' && scheme !== 'https') {
    if (scheme === 'javascript') return { fetch: false, status: 'Invalid', finding: (f) => f.fail('scheme_check', 'Script Link', 'serious', 'Email clients strip javascript: links; this one does nothing.', 'Link to a web page instead.') };
    return { fetch: false, finding: (f) => f.inform('scheme_check', `${scheme}: Link`, `A ${scheme}: link opens an application, not a web page: not fetched.`, [{ scheme }]) };
  }
  try {
    return { fetch: true, url: new URL(text) };
  } catch {
    return { fetch: false, status: 'Invalid', finding: (f) => f.fail('href_check', 'Malformed URL', 'serious', 'The address cannot be parsed as a URL.', 'Correct the address.', [{ url: text }]) };
  }
}

/** HEAD, and one GET (headers only) where HEAD is answered with an error or the connection drops on it. */
async function request(gate: ConcurrencyGate, url: string, options: CheckOptions): Promise<FetchOutcome> {
  const base = { userAgent: options.userAgent ?? undefined, timeoutMs: options.timeoutMs ?? 10_000, maxBytes: 0, policy: options.policy, ca: options.ca };
  const host = new URL(url).host;
  try {
    const head = await gate.run(host, () => fetchOnce(url, { ...base, method: 'HEAD' }));
    if (!confirmWithGet(head.status)) return head;
  } catch (error) {
    if (!(error instanceof FetchError) || error.kind !== 'network') throw error;
  }
  return gate.run(host, () => fetchOnce(url, { ...base, method: 'GET' }));
}

type Chain = { hops: Hop[]; end: 'answer' | 'loop' | 'too-many'; error?: FetchError };

async function walk(gate: ConcurrencyGate, start: URL, options: CheckOptions): Promise<Chain> {
  const maxHops = options.maxHops ?? 10;
  const hops: Hop[] = [];
  const seen = new Set<string>();
  let url = start.href;
  for (;;) {
    seen.add(url);
    let outcome: FetchOutcome;
    try {
      outcome = await request(gate, url, options);
    } catch (error) {
      return { hops, end: 'answer', error: error instanceof FetchError ? error : new FetchError((error as Error).message, 'network') };
    }
    const location = outcome.status >= 300 && outcome.status < 400 ? (outcome.headers['location'] ?? null) : null;
    const ms = outcome.timings.totalMs;
    hops.push({ url, status_code: outcome.status, location, time_elapsed: goDuration(ms), ms, outcome });
    if (!location) return { hops, end: 'answer' };
    let next: string;
    try {
      next = new URL(location, url).href;
    } catch {
      return { hops, end: 'answer' };
    }
    if (seen.has(next)) return { hops, end: 'loop' };
    if (hops.length >= maxHops) return { hops, end: 'too-many' };
    url = next;
  }
}

function judgeTls(findings: Findings, tls: TlsReport, url: string, now: number): void {
  const details = [{ common_name: tls.subject ?? null, issuer: tls.issuer ?? null, expires_on: tls.validTo ?? null, url }];
  const recommendation = 'Renew or replace the certificate so readers are not warned away from the site.';
  switch (tls.error) {
    case undefined:
      break;
    case 'CERT_HAS_EXPIRED':
      return findings.fail('ssl_certificate_check', 'Expired SSL Certificate', 'critical', 'The site\'s certificate has expired: browsers show a security warning instead of the page.', recommendation, details);
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return findings.fail('ssl_certificate_check', 'Self-Signed SSL Certificate', 'critical', 'The site\'s certificate is self-signed: browsers do not trust it.', recommendation, details);
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return findings.fail('ssl_certificate_check', 'Hostname Mismatch', 'critical', 'The site\'s certificate is for another host name.', 'Use a certificate that names this host.', details);
    default:
      return findings.fail('ssl_certificate_check', 'Untrusted SSL Certificate', 'critical', `The site's certificate is not trusted (${tls.error}).`, recommendation, details);
  }
  const expires = tls.validTo ? Date.parse(tls.validTo) : NaN;
  if (Number.isFinite(expires) && expires - now < EXPIRING_DAYS * 86_400_000) {
    return findings.fail('ssl_certificate_check', 'Certificate Expiring Soon', 'moderate', `The site's certificate expires within ${EXPIRING_DAYS} days.`, recommendation, details);
  }
  findings.pass('ssl_certificate_check', 'SSL Certificate Valid', 'The certificate is valid and not about to expire.', details);
}

function resultOf(link: LinkInput, findings: Findings, status: LinkResult['status'], statusCode: number | null): LinkResult {
  return {
    url: link.url,
    status,
    status_code: statusCode,
    line: link.line ?? null,
    column: link.column ?? null,
    selector: link.selector ?? null,
    absolute_index: link.absolute_index ?? null,
    passes: findings.passes,
    failures: findings.failures,
    informational: findings.informational,
  };
}

async function checkLink(gate: ConcurrencyGate, link: LinkInput, options: CheckOptions): Promise<LinkResult> {
  const findings = new Findings();
  const plan = planFor(link.url);
  if (!plan.fetch) {
    plan.finding(findings);
    return resultOf(link, findings, plan.status ?? 'Valid', null);
  }
  const chain = await walk(gate, plan.url, options);
  const hopDetails = chain.hops.map(({ url, status_code, location, time_elapsed }) => ({ url, status_code, location, time_elapsed }));
  const totalMs = chain.hops.reduce((sum, hop) => sum + hop.ms, 0);
  for (const hop of chain.hops) if (hop.outcome.tls) judgeTls(findings, hop.outcome.tls, hop.url, Date.now());
  if (plan.url.protocol === 'http:') findings.fail('insecure_link_check', 'Insecure HTTP Link', 'minor', 'The link is not https: what the reader sends and receives can be read or altered on the way.', 'Link to the https:// address.');

  if (chain.error && !chain.hops.length) {
    const error = chain.error;
    const rule = error.kind === 'forbidden-address' ? 'Blocked Address' : error.kind === 'timeout' ? 'Request Timed Out' : error.kind === 'dns' ? 'Host Not Found' : 'Unreachable Link';
    findings.fail('http_status_check', rule, 'critical', `No HTTP answer: ${error.message}.`, 'Check that the address is right and the site is up.', [{ error: error.message, kind: error.kind }]);
    return resultOf(link, findings, 'Error', null);
  }
  const last = chain.hops.at(-1)!;
  if (chain.error) {
    findings.fail('redirect_check', 'Broken Redirect', 'critical', `A redirect leads to an address that does not answer: ${chain.error.message}.`, 'Fix the redirect target.', hopDetails);
  } else if (chain.end === 'loop') {
    findings.fail('redirect_check', 'Redirect Loop', 'serious', 'The redirects lead back to an address already visited; the page never loads.', 'Fix the redirects so they end at a page.', hopDetails);
  } else if (chain.end === 'too-many') {
    findings.fail('redirect_check', 'Too Many Redirects', 'serious', `More than ${options.maxHops ?? 10} redirects; browsers give up.`, 'Link to the final address directly.', hopDetails);
  } else if (chain.hops.length > 1) {
    findings.pass('redirect_check', 'Redirect Check', `${chain.hops.length - 1} redirect(s), ending at a page.`, hopDetails);
  } else {
    findings.pass('redirect_check', 'Redirect Check', 'No redirects.', hopDetails);
  }
  const code = last.status_code;
  const answered = !chain.error && chain.end === 'answer';
  if (answered && code >= 200 && code < 300) findings.pass('http_status_check', 'Valid HTTP Response', 'The link answers with a page.', [{ status_code: code }]);
  else if (answered) findings.fail('http_status_check', 'Broken Link', 'critical', `The link answers HTTP ${code}.`, 'Fix or remove the link.', [{ status_code: code }]);
  if (totalMs > SLOW_MS) findings.fail('response_time_check', 'Slow Response', 'moderate', `The page took ${goDuration(totalMs)} to answer.`, 'Readers leave slow pages; check the site or the redirects.', [{ time_elapsed: goDuration(totalMs) }]);
  else findings.pass('response_time_check', 'Fast Response Time', 'The page answers quickly.', [{ time_elapsed: goDuration(totalMs) }]);
  const type = last.outcome.headers['content-type'];
  if (type) findings.inform('content_type_check', 'Content Type', 'The type of what the link returns.', [{ content_type: type }]);
  const length = last.outcome.headers['content-length'];
  if (length) findings.inform('content_length_check', 'Content Length', 'The size the server declares.', [{ content_length: length }]);
  return resultOf(link, findings, isBroken(findings) ? 'Invalid' : 'Valid', code);
}

/** Checks every link, results in the links' order, at most `concurrency` requests at once and `perHost` per host. */
export async function checkLinks(links: LinkInput[], options: CheckOptions): Promise<LinkResult[]> {
  const gate = new ConcurrencyGate(options.concurrency ?? 12, options.perHost ?? 2);
  return Promise.all(links.map((link) => checkLink(gate, link, options)));
}
