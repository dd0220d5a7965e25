/**
 * SMTP submission throughput (issue 11): messages per second of a 20 KB MIME message submitted over
 * SMTP with an authenticated credential, over one connection and over ten, beside the same message
 * through POST /v3/{domain}/messages.mime over HTTP with one connection and with ten, in the same
 * run, against the same local mode. Both end in the same accept path (functions/messages/
 * mime-submission.ts): stored in S3, a record and accepted events in DynamoDB, a send job queued.
 * Target: SMTP within 1.5x of the HTTP path's messages/s, at each concurrency.
 *
 *   npx tsx bench/smtp-submission.ts     (or as part of `npm run bench`)
 *
 * How it is measured: local mode runs in this process (in memory, the stand-ins included), and so
 * do the clients: nodemailer's pooled SMTP transport over STARTTLS (authenticated once per
 * connection, before timing; the message handed over raw, so nodemailer composes nothing) and
 * fetch with keep-alive for HTTP. Variants alternate round by round after a warm-up, and each
 * figure is the median of its rounds' messages/s (wall clock). The send worker delivers what is
 * accepted in the background meanwhile, for both paths alike.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { fixed, median, note, passFail, print, ratio, table, type TargetCheck } from './lib/report';

const MESSAGE_BYTES = 20 * 1024;
const ROUNDS = 3;
/** Messages per round and variant, per connection. */
const PER_CONNECTION = 20;
const WARMUP_PER_CONNECTION = 5;
/** Issue 11: SMTP within 1.5x of the HTTP path. */
const MAX_RATIO = 1.5;
const PASSWORD = 'bench-smtp-secret';

export interface SubmissionVariant {
  label: string;
  connections: number;
  messagesPerSecond: number;
  rounds: number[];
}

export interface SmtpSubmissionResult {
  messageBytes: number;
  durationSeconds: number;
  variants: { http1: SubmissionVariant; smtp1: SubmissionVariant; http10: SubmissionVariant; smtp10: SubmissionVariant };
  /** HTTP messages/s over SMTP messages/s, per concurrency (above 1: SMTP is slower). */
  ratio1: number;
  ratio10: number;
  checks: TargetCheck[];
}

/** A 20 KB text message with the headers a mail client writes. */
function message(from: string, to: string, n: number): Buffer {
  const head = [`From: Bench <${from}>`, `To: ${to}`, `Subject: bench ${n}`, `Date: ${new Date().toUTCString()}`, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'X-Mailgun-Tag: bench', '', ''].join('\r\n');
  const line = `${'The quick brown fox jumps over the lazy dog.'.padEnd(76, '.')}\r\n`;
  return Buffer.from(head + line.repeat(Math.ceil((MESSAGE_BYTES - head.length) / line.length)).slice(0, MESSAGE_BYTES - head.length));
}

/** Runs `count` sends on each of `connections` lanes at once; answers messages/s. */
async function lanes(connections: number, count: number, send: (lane: number, n: number) => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async (_, lane) => {
      for (let n = 0; n < count; n++) await send(lane, n);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return (connections * count) / seconds;
}

export async function smtpSubmission(): Promise<SmtpSubmissionResult> {
  const started = Date.now();
  return withLocalMode({ bench: 'smtp submission' }, async ({ us, sandbox, caPem, atClose }) => {
    const auth = `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}`;
    const created = await fetch(`${us.url}/v3/domains/${sandbox}/credentials`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login: 'bench', password: PASSWORD }),
    });
    if (created.status !== 200) throw new Error(`creating the credential answered ${created.status}: ${await created.text()}`);
    const from = `bench@${sandbox}`;
    const to = 'someone@example.com';
    const mime = message(from, to, 0);

    const httpSend = async () => {
      const form = new FormData();
      form.append('to', to);
      form.append('message', new Blob([new Uint8Array(mime)]), 'MimeMessage');
      const res = await fetch(`${us.url}/v3/${sandbox}/messages.mime`, { method: 'POST', headers: { authorization: auth }, body: form });
      if (res.status !== 200) throw new Error(`messages.mime answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    // One pooled transport per lane: each its own authenticated connection, kept open.
    const pools = (n: number) =>
      Array.from({ length: n }, () =>
        nodemailer.createTransport({
          pool: true,
          maxConnections: 1,
          maxMessages: Infinity,
          host: us.smtp.host,
          port: us.smtp.port,
          secure: false,
          requireTLS: true,
          auth: { user: from, pass: PASSWORD },
          tls: { ca: caPem },
        } as SMTPPool.Options),
      );
    const smtp1 = pools(1);
    const smtp10 = pools(10);
    atClose(() => [...smtp1, ...smtp10].forEach((pool) => pool.close()));
    const smtpSend = (pool: Transporter) => async () => {
      const info = await pool.sendMail({ envelope: { from, to: [to] }, raw: mime });
      if (!String(info.response).startsWith('250')) throw new Error(`SMTP answered ${info.response}`);
    };

    const variants = {
      http1: { label: 'HTTP messages.mime, 1 connection', connections: 1, run: (count: number) => lanes(1, count, httpSend) },
      smtp1: { label: 'SMTP (STARTTLS, AUTH), 1 connection', connections: 1, run: (count: number) => lanes(1, count, (lane) => smtpSend(smtp1[lane]!)()) },
      http10: { label: 'HTTP messages.mime, 10 connections', connections: 10, run: (count: number) => lanes(10, count, httpSend) },
      smtp10: { label: 'SMTP (STARTTLS, AUTH), 10 connections', connections: 10, run: (count: number) => lanes(10, count, (lane) => smtpSend(smtp10[lane]!)()) },
    };
    note('smtp submission: warm-up (and one AUTH per SMTP connection)');
    for (const variant of Object.values(variants)) await variant.run(WARMUP_PER_CONNECTION);
    const rounds: Record<keyof typeof variants, number[]> = { http1: [], smtp1: [], http10: [], smtp10: [] };
    for (let round = 0; round < ROUNDS; round++) {
      note(`smtp submission: round ${round + 1}/${ROUNDS}`);
      for (const [name, variant] of Object.entries(variants) as Array<[keyof typeof variants, (typeof variants)[keyof typeof variants]]>) {
        rounds[name].push(await variant.run(PER_CONNECTION));
      }
    }
    const result = (name: keyof typeof variants): SubmissionVariant => ({
      label: variants[name].label,
      connections: variants[name].connections,
      messagesPerSecond: median(rounds[name]),
      rounds: rounds[name],
    });
    const out = { http1: result('http1'), smtp1: result('smtp1'), http10: result('http10'), smtp10: result('smtp10') };
    const ratio1 = out.http1.messagesPerSecond / out.smtp1.messagesPerSecond;
    const ratio10 = out.http10.messagesPerSecond / out.smtp10.messagesPerSecond;
    const check = (connections: number, r: number, smtp: SubmissionVariant): TargetCheck => ({
      benchmark: 'smtp submission',
      subject: `20 KB messages/s, ${connections} connection${connections > 1 ? 's' : ''}`,
      figure: `${fixed(smtp.messagesPerSecond, 0)}/s (HTTP ${ratio(r)} of it)`,
      target: `HTTP/SMTP <= ${MAX_RATIO}x`,
      pass: r <= MAX_RATIO,
    });
    return {
      messageBytes: mime.length,
      durationSeconds: (Date.now() - started) / 1000,
      variants: out,
      ratio1,
      ratio10,
      checks: [check(1, ratio1, out.smtp1), check(10, ratio10, out.smtp10)],
    };
  });
}

export function printSmtpSubmission(result: SmtpSubmissionResult): void {
  print(`== SMTP submission: ${fixed(result.messageBytes / 1024, 0)} KB messages, SMTP beside HTTP messages.mime, ${ROUNDS} alternating rounds ==`);
  print(`Local mode and the clients in this process; both paths end in the same accept path (S3, DynamoDB, send queue). Took ${fixed(result.durationSeconds, 0)} s.`);
  print();
  const row = (v: SubmissionVariant) => [v.label, fixed(v.messagesPerSecond, 0), v.rounds.map((r) => fixed(r, 0)).join(', ')];
  const { http1, smtp1, http10, smtp10 } = result.variants;
  print(
    table([
      ['', 'messages/s (median)', 'rounds'],
      row(http1),
      row(smtp1),
      ['ratio HTTP/SMTP, 1 connection', ratio(result.ratio1), `target <= ${MAX_RATIO}x: ${passFail(result.checks[0]!.pass)}`],
      row(http10),
      row(smtp10),
      ['ratio HTTP/SMTP, 10 connections', ratio(result.ratio10), `target <= ${MAX_RATIO}x: ${passFail(result.checks[1]!.pass)}`],
    ]),
  );
  print();
}

if (require.main === module) {
  smtpSubmission().then(printSmtpSubmission, (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
