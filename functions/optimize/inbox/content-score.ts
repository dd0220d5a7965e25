import { connect } from 'node:net';
import { env } from '../../platform/env';

/**
 * The content score of a placement result (`spamassassin`), from a real scorer the operator runs:
 * SpamAssassin's spamd over its own protocol (SPAMD_ADDRESS), or rspamd's HTTP API (RSPAMD_URL).
 * With neither, there is no score: null, never an invented one. A scorer that fails leaves it
 * null as well, and says so in the log.
 */
export interface ContentScore {
  is_spam: boolean;
  score: number;
  required: number;
  rules: Array<{ name: string; points: number; short_description: string; long_description: string }>;
}

const SCORE_TIMEOUT_MS = 15_000;

/** spamd's REPORT answer: `Spam: True ; 6.1 / 5.0` and the report's rule table. */
export function parseSpamdReply(reply: string): ContentScore {
  const split = reply.search(/\r?\n\r?\n/);
  const head = split < 0 ? reply : reply.slice(0, split);
  const report = split < 0 ? '' : reply.slice(split).trimStart();
  const status = /^SPAMD\/[\d.]+\s+(\d+)\s+(.*)$/m.exec(head);
  if (!status || status[1] !== '0') throw new Error(`spamd refused the message: ${status ? `${status[1]} ${status[2]}` : 'no SPAMD status line'}`);
  const verdict = /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/im.exec(head);
  if (!verdict) throw new Error('spamd answered without a Spam: header');
  const rules: ContentScore['rules'] = [];
  const table = report.split(/\r?\n/);
  const start = table.findIndex((line) => /^-{3,}\s+-{3,}/.test(line));
  for (const line of start >= 0 ? table.slice(start + 1) : []) {
    const rule = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
    if (rule) rules.push({ name: rule[2]!, points: Number(rule[1]), short_description: rule[3]!.trim(), long_description: rule[3]!.trim() });
    else if (rules.length && /^\s{5,}\S/.test(line)) {
      const last = rules[rules.length - 1]!;
      last.long_description = `${last.long_description} ${line.trim()}`;
    }
  }
  return { is_spam: /^(true|yes)$/i.test(verdict[1]!), score: Number(verdict[2]), required: Number(verdict[3]), rules };
}

async function spamdScore(address: string, mime: Buffer): Promise<ContentScore> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    socket.setTimeout(SCORE_TIMEOUT_MS, () => socket.destroy(new Error('spamd did not answer in time')));
    socket.on('connect', () => socket.end(Buffer.concat([Buffer.from(`REPORT SPAMC/1.5\r\nContent-length: ${mime.length}\r\n\r\n`), mime])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseSpamdReply(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

interface RspamdReply {
  action?: string;
  score?: number;
  required_score?: number;
  symbols?: Record<string, { name?: string; score?: number; description?: string }>;
}

/** rspamd's verdicts that mean spam; `no action` and `greylist` do not. */
const RSPAMD_SPAM_ACTIONS = new Set(['reject', 'add header', 'rewrite subject', 'soft reject']);

export function fromRspamd(reply: RspamdReply): ContentScore {
  if (typeof reply.score !== 'number' || typeof reply.required_score !== 'number') throw new Error('rspamd answered without a score');
  const rules = Object.entries(reply.symbols ?? {}).map(([name, symbol]) => ({ name, points: symbol.score ?? 0, short_description: symbol.description ?? '', long_description: symbol.description ?? '' }));
  return { is_spam: RSPAMD_SPAM_ACTIONS.has(reply.action ?? ''), score: reply.score, required: reply.required_score, rules };
}

async function rspamdScore(base: string, mime: Buffer): Promise<ContentScore> {
  const response = await fetch(new URL('/checkv2', base), { method: 'POST', body: new Uint8Array(mime), signal: AbortSignal.timeout(SCORE_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`rspamd answered ${response.status}`);
  return fromRspamd((await response.json()) as RspamdReply);
}

/** The message's score from this scorer (spamd first); null when there is none. Throws when it fails. */
export async function scoreWith(scorer: { spamdAddress?: string; rspamdUrl?: string }, mime: Buffer): Promise<ContentScore | null> {
  if (scorer.spamdAddress) return spamdScore(scorer.spamdAddress, mime);
  if (scorer.rspamdUrl) return rspamdScore(scorer.rspamdUrl, mime);
  return null;
}

/** The message's score from the configured scorer (SPAMD_ADDRESS, RSPAMD_URL). */
export async function contentScore(mime: Buffer): Promise<ContentScore | null> {
  const { SPAMD_ADDRESS, RSPAMD_URL } = env();
  return scoreWith({ spamdAddress: SPAMD_ADDRESS, rspamdUrl: RSPAMD_URL }, mime);
}
