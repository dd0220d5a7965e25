/**
 * Inbound throughput (issue 12): messages per second from SMTP receipt to route action done, for
 * 50 KB messages delivered to local mode's SES receiving stand-in, with one route forwarding each
 * to a receiver on loopback (the receiver counts a message done when its form has arrived), beside
 * a floor measured in the same run: mailparser alone parsing the same messages. The ratio says how
 * much of the path is parsing and how much is the rest (SMTP, S3, DynamoDB, two queues, the route's
 * second parse, the signed multipart POST).
 *
 *   npx tsx bench/inbound.ts     (or as part of `npm run bench`)
 *
 * Measured with local mode in this process (in memory), nodemailer's pooled SMTP transport (5
 * connections) and a node:http receiver. Each figure is the median of ROUNDS rounds (wall clock).
 */
import { simpleParser } from 'mailparser';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { fixed, median, note, print, ratio, REPORTED, table, type TargetCheck } from './lib/report';

const MESSAGE_BYTES = 50 * 1024;
const ROUNDS = 3;
const PER_ROUND = 40;
const CONNECTIONS = 5;

export interface InboundResult {
  messageBytes: number;
  inboundPerSecond: number;
  parsePerSecond: number;
  /** parse/s over inbound/s (above 1: the path is slower than its floor). */
  ratio: number;
  rounds: { inbound: number[]; parse: number[] };
  checks: TargetCheck[];
}

function message(to: string, n: number): Buffer {
  const head = [`From: Bench <bench@example.org>`, `To: ${to}`, `Subject: inbound ${n}`, `Message-ID: <inbound-${n}-${Date.now()}@example.org>`, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', '', ''].join('\r\n');
  const line = `${'Thanks, that works for me.'.padEnd(76, '.')}\r\n`;
  return Buffer.from(head + line.repeat(Math.ceil((MESSAGE_BYTES - head.length) / line.length)).slice(0, MESSAGE_BYTES - head.length));
}

export async function inbound(): Promise<InboundResult> {
  return withLocalMode({ bench: 'inbound', env: { WEBHOOK_RETRY_SCALE: '0.001' } }, async ({ us, sandbox, atClose }) => {
    let received = 0;
    let waiter: (() => void) | undefined;
    let target = 0;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200).end('ok');
        received += 1;
        if (received >= target) waiter?.();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    atClose(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    const auth = `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}`;
    const created = await fetch(`${us.url}/v3/routes`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ priority: '0', expression: 'catch_all()', action: `forward("${url}")` }),
    });
    if (created.status !== 200) throw new Error(`creating the route answered ${created.status}: ${await created.text()}`);
    const smtp = nodemailer.createTransport({ host: us.inboundSmtp.host, port: us.inboundSmtp.port, secure: false, ignoreTLS: true, pool: true, maxConnections: CONNECTIONS });
    atClose(() => smtp.close());
    const to = `bench@${sandbox}`;
    const messages = Array.from({ length: PER_ROUND }, (_, n) => message(to, n));

    const inboundRound = async () => {
      target = received + PER_ROUND;
      const done = new Promise<void>((resolve) => (waiter = resolve));
      const started = process.hrtime.bigint();
      await Promise.all(messages.map((raw) => smtp.sendMail({ envelope: { from: 'bench@example.org', to: [to] }, raw })));
      await done;
      return PER_ROUND / (Number(process.hrtime.bigint() - started) / 1e9);
    };
    const parseRound = async () => {
      const started = process.hrtime.bigint();
      for (const raw of messages) await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
      return PER_ROUND / (Number(process.hrtime.bigint() - started) / 1e9);
    };
    note('inbound: warm-up');
    await inboundRound();
    await parseRound();
    const rounds = { inbound: [] as number[], parse: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      note(`inbound: round ${i + 1}/${ROUNDS}`);
      rounds.inbound.push(await inboundRound());
      rounds.parse.push(await parseRound());
    }
    const inboundPerSecond = median(rounds.inbound);
    const parsePerSecond = median(rounds.parse);
    const r = parsePerSecond / inboundPerSecond;
    return {
      messageBytes: MESSAGE_BYTES,
      inboundPerSecond,
      parsePerSecond,
      ratio: r,
      rounds,
      checks: [{ benchmark: 'inbound', subject: 'SMTP receipt to forward done vs mailparser alone', figure: ratio(r), target: REPORTED, pass: true }],
    };
  });
}

export function printInbound(result: InboundResult): void {
  print(`Inbound (${result.messageBytes / 1024} KB messages, one route forwarding to a loopback receiver, ${CONNECTIONS} SMTP connections)`);
  print(
    table([
      ['path', 'messages/s', 'rounds'],
      ['SMTP receipt -> route forward done', fixed(result.inboundPerSecond), result.rounds.inbound.map((n) => fixed(n)).join(' ')],
      ['floor: mailparser alone', fixed(result.parsePerSecond), result.rounds.parse.map((n) => fixed(n)).join(' ')],
    ]),
  );
  print(`ratio (floor / ours): ${ratio(result.ratio)}`);
  print();
}

if (require.main === module) {
  inbound()
    .then(printInbound)
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    });
}
