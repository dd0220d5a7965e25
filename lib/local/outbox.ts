import { Resolver } from 'node:dns/promises';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import type { SentMessage } from './ses-standin';

/** How long delivered copies are kept: the outbox is for looking at recent mail, not an archive. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;

/** The authserv-id of the Authentication-Results header (RFC 8601): who did the checking. */
const AUTHSERV_ID = 'outbox.mailplane.local';

/**
 * The far end of local mode's SES: each message SES delivers is written to `dir` as
 * `<SES message id>.eml`, as a recipient's mail server would store it. That server checks DKIM, so
 * each copy starts with the Authentication-Results header it would add, checked against the
 * region's DNS (the local DNS server, or the resolvers the user named): a user opens the file and
 * sees whether their domain's key signed it and verified.
 */
export class Outbox {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly dnsServers: string[],
    private readonly report: (error: Error) => void = (error) => console.error(`outbox: ${error.message}`),
  ) {
    mkdirSync(dir, { recursive: true });
    this.prune(Date.now() - OUTBOX_RETENTION_MS);
  }

  /** Stores a delivered message in the background: SES has already answered the sender. */
  deliver(message: SentMessage, recipients: string[]): void {
    if (!recipients.length) return;
    const written = this.write(message, recipients).catch((error: Error) => this.report(error));
    this.pending.add(written);
    void written.finally(() => this.pending.delete(written));
  }

  /** Waits for copies still being checked and written. */
  async close(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async write(message: SentMessage, recipients: string[]): Promise<void> {
    const verdicts = await this.verifyDkim(message.raw);
    const head = [`Authentication-Results: ${AUTHSERV_ID};\r\n ${verdicts.join(';\r\n ')}`, `X-Delivered-To: ${recipients.join(', ')}`].join('\r\n');
    writeFileSync(join(this.dir, `${message.sesMessageId}.eml`), Buffer.concat([Buffer.from(`${head}\r\n`), message.raw]), { mode: 0o600 });
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
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      if (name.endsWith('.eml') && statSync(path).mtimeMs < before) rmSync(path, { force: true });
    }
  }
}
