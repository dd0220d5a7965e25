import { Resolver } from 'node:dns/promises';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { TAG_ACCOUNT, TAG_STORAGE } from '../../functions/delivery/claims';
import { simulated, type RefusedSend, type SentMessage } from './ses-standin';
import { writeStateFile } from './state-file';

/** How long delivered copies are kept: the outbox is for looking at recent mail, not an archive. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;

/** How many messages an outbox without a folder keeps (tests, benchmarks): the newest. */
const KEPT_IN_MEMORY = 1000;

/** The authserv-id of the Authentication-Results header (RFC 8601): who did the checking. */
const AUTHSERV_ID = 'outbox.mailplane.local';

export type RecipientOutcome = 'delivered' | 'bounced' | 'complained' | 'refused';

/** One message SES was handed, as the outbox lists it. */
export interface OutboxEntry {
  /** SES's message id; for a send SES refused, an id of the outbox's own. */
  id: string;
  /** Order of arrival in this outbox: the newest has the highest. */
  seq: number;
  timestamp: string;
  status: 'delivered' | 'partly delivered' | 'bounced' | 'refused';
  recipients: Array<{ address: string; outcome: RecipientOutcome }>;
  from: string;
  to: string;
  subject: string;
  messageId: string;
  size: number;
  /** The platform account that sent it (the send's SES tags), which alone may read it. */
  accountId?: string;
  /** The stored message's key, for the API's events and stored-message routes. */
  storageKey?: string;
  /** Why SES refused it. */
  reason?: string;
}

interface Held {
  entry: OutboxEntry;
  /** The copy as the recipient's server stores it, once written (memory), or its file. */
  copy?: Buffer;
  file?: string;
  /** What SES was handed, for sends with no delivered copy. */
  raw: Buffer | undefined;
}

/** A recipient's outcome: the mailbox simulator's addresses (with or without a +label) bounce or complain, as the SES stand-in makes them. */
function outcomeOf(address: string, delivered: readonly string[]): RecipientOutcome {
  const kind = simulated(address);
  if (!delivered.includes(address)) return kind === 'bounce' || kind === 'suppressionlist' ? 'bounced' : 'refused';
  return kind === 'complaint' ? 'complained' : 'delivered';
}

/** Sender, recipients, subject and Message-Id, decoded (encoded words), from the header block alone. */
async function summary(raw: Buffer): Promise<Pick<OutboxEntry, 'from' | 'to' | 'subject' | 'messageId'>> {
  const end = raw.indexOf('\r\n\r\n');
  const head = await simpleParser(raw.subarray(0, end < 0 ? Math.min(raw.length, 64 * 1024) : end + 4), { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const addresses = (value: typeof head.to) => (Array.isArray(value) ? value.map((v) => v.text).join(', ') : (value?.text ?? ''));
  return { from: head.from?.text ?? '', to: addresses(head.to), subject: head.subject ?? '', messageId: (head.messageId ?? '').replace(/^<|>$/g, '') };
}

function statusOf(recipients: OutboxEntry['recipients']): OutboxEntry['status'] {
  const delivered = recipients.filter((r) => r.outcome === 'delivered' || r.outcome === 'complained').length;
  return delivered === recipients.length ? 'delivered' : delivered ? 'partly delivered' : 'bounced';
}

export interface OutboxQuery {
  accountId: string;
  /** Words that must all appear in the sender, recipients or subject (case-insensitive). */
  search?: string;
  limit: number;
  /** Only messages older than this seq (the next page). */
  before?: number;
  /** Only messages newer than this seq (what arrived since the last look). */
  since?: number;
}

/**
 * The far end of local mode's SES: every message SES was handed, newest first, for the console's
 * Outbox and the local-only JSON route (lib/local/outbox-api.ts). With a folder, each delivered
 * message is also written to it as `<SES message id>.eml`, as a recipient's mail server would store
 * it: that server checks DKIM, so each copy starts with the Authentication-Results header it would
 * add, checked against the region's DNS (the local DNS server, or the resolvers the user named);
 * `<id>.json` beside it keeps what the outbox lists. Sends SES refused or that reached no mailbox
 * are kept in memory only. Without a folder (tests), the newest KEPT_IN_MEMORY are kept in memory,
 * and a copy's DKIM verdict is worked out when it is first read.
 */
export class Outbox {
  private readonly pending = new Set<Promise<void>>();
  private readonly held = new Map<string, Held>();
  private seq = 0;

  constructor(
    private readonly dir: string | undefined,
    private readonly dnsServers: string[],
    private readonly report: (error: Error) => void = (error) => console.error(`outbox: ${error.message}`),
  ) {
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    this.prune(Date.now() - OUTBOX_RETENTION_MS);
    this.load();
  }

  /** A message SES accepted; `delivered` are the recipients whose mailbox got it. */
  record(message: SentMessage, delivered: string[]): void {
    const recipients = message.destinations.map((address) => ({ address, outcome: outcomeOf(address, delivered) }));
    this.inBackground(async () => {
      const entry = await this.entryOf(message.sesMessageId, message.raw, message.tags, recipients);
      if (!delivered.length || !this.dir) return this.hold({ entry, raw: message.raw });
      await this.write(message, delivered, entry);
    });
  }

  /** A send SES refused (an unverified sender, an unknown configuration set, too many recipients). */
  refuse(send: RefusedSend): void {
    const id = `refused-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`;
    this.inBackground(async () => {
      const entry = await this.entryOf(id, send.raw, send.tags, send.destinations.map((address) => ({ address, outcome: 'refused' as const })));
      this.hold({ entry: { ...entry, status: 'refused', reason: send.reason }, raw: send.raw });
    });
  }

  /** SES has already answered the sender: the outbox files its copy after. */
  private inBackground(work: () => Promise<void>): void {
    const done = work().catch((error: Error) => this.report(error));
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  /** The newest messages of an account first, a page at a time. */
  list(query: OutboxQuery): { messages: OutboxEntry[]; total: number } {
    const words = (query.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const matches = [...this.held.values()]
      .map((h) => h.entry)
      .filter((e) => e.accountId === query.accountId)
      .filter((e) => (query.before === undefined || e.seq < query.before) && (query.since === undefined || e.seq > query.since))
      .filter((e) => {
        if (!words.length) return true;
        const text = [e.from, e.to, e.subject, e.messageId, ...e.recipients.map((r) => r.address)].join(' ').toLowerCase();
        return words.every((w) => text.includes(w));
      })
      .sort((a, b) => b.seq - a.seq);
    return { messages: matches.slice(0, query.limit), total: matches.length };
  }

  /** One message of an account, or undefined. */
  entry(id: string, accountId: string): OutboxEntry | undefined {
    const held = this.held.get(id);
    return held?.entry.accountId === accountId ? held.entry : undefined;
  }

  /** The message as the recipient's server stores it (delivered), or as SES was handed it. */
  async source(id: string): Promise<Buffer | undefined> {
    const held = this.held.get(id);
    if (!held) return undefined;
    if (held.file) return readFile(held.file);
    if (held.copy) return held.copy;
    if (held.entry.status === 'refused' || held.entry.status === 'bounced' || !held.raw) return held.raw;
    held.copy = await this.stamp(held.raw, held.entry.recipients.filter((r) => r.outcome !== 'bounced' && r.outcome !== 'refused').map((r) => r.address));
    return held.copy;
  }

  /** Forgets an account's messages (and their files); answers how many. */
  clear(accountId: string): number {
    let count = 0;
    for (const [id, held] of this.held) {
      if (held.entry.accountId !== accountId) continue;
      this.held.delete(id);
      if (held.file) {
        rmSync(held.file, { force: true });
        rmSync(held.file.replace(/\.eml$/, '.json'), { force: true });
      }
      count += 1;
    }
    return count;
  }

  /** Waits for copies still being checked and written. */
  async close(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async entryOf(id: string, raw: Buffer, tags: Record<string, string[]>, recipients: OutboxEntry['recipients']): Promise<OutboxEntry> {
    return {
      id,
      seq: 0,
      timestamp: new Date().toISOString(),
      status: statusOf(recipients),
      recipients,
      ...(await summary(raw)),
      size: raw.length,
      accountId: tags[TAG_ACCOUNT]?.[0],
      storageKey: tags[TAG_STORAGE]?.[0],
    };
  }

  private hold(held: Held): void {
    held.entry.seq = ++this.seq;
    this.held.set(held.entry.id, held);
    if (this.dir) return;
    // Without a folder, the oldest go: the Map keeps insertion order.
    for (const id of this.held.keys()) {
      if (this.held.size <= KEPT_IN_MEMORY) break;
      this.held.delete(id);
    }
  }

  private async stamp(raw: Buffer, recipients: string[]): Promise<Buffer> {
    const verdicts = await this.verifyDkim(raw);
    const head = [`Authentication-Results: ${AUTHSERV_ID};\r\n ${verdicts.join(';\r\n ')}`, `X-Delivered-To: ${recipients.join(', ')}`].join('\r\n');
    return Buffer.concat([Buffer.from(`${head}\r\n`), raw]);
  }

  private async write(message: SentMessage, recipients: string[], entry: OutboxEntry): Promise<void> {
    const file = join(this.dir!, `${message.sesMessageId}.eml`);
    // The entry is written after its message, so a listed entry always has its whole .eml.
    writeStateFile(file, await this.stamp(message.raw, recipients));
    writeStateFile(file.replace(/\.eml$/, '.json'), JSON.stringify(entry));
    this.hold({ entry, file, raw: undefined });
  }

  /** The delivered copies of earlier runs, oldest first (each `.eml` with its `.json`). */
  private load(): void {
    const entries: Array<{ entry: OutboxEntry; file: string }> = [];
    for (const name of readdirSync(this.dir!)) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir!, name.replace(/\.json$/, '.eml'));
      try {
        entries.push({ entry: JSON.parse(readFileSync(join(this.dir!, name), 'utf8')) as OutboxEntry, file });
      } catch {
        // Not an entry (a stray .json put in the folder by hand): skipped, as a listing would.
      }
    }
    entries.sort((a, b) => a.entry.timestamp.localeCompare(b.entry.timestamp) || a.entry.seq - b.entry.seq);
    for (const { entry, file } of entries) this.hold({ entry, file, raw: undefined });
  }

  private async verifyDkim(raw: Buffer): Promise<string[]> {
    const resolver = new Resolver({ timeout: 2000, tries: 2 });
    if (this.dnsServers.length) resolver.setServers(this.dnsServers);
    try {
      // DKIM asks DNS for TXT records only.
      const verdict = await dkimVerify(raw, { resolver: (name: string) => resolver.resolveTxt(name) });
      return verdict.results.map((result) => result.info);
    } finally {
      resolver.cancel();
    }
  }

  private prune(before: number): void {
    for (const name of readdirSync(this.dir!)) {
      const path = join(this.dir!, name);
      if ((name.endsWith('.eml') || name.endsWith('.json')) && statSync(path).mtimeMs < before) rmSync(path, { force: true });
    }
  }
}
