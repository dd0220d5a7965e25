/**
 * One inbox placement poll round over 50 seed mailboxes on local IMAP servers (hoodiecrow, one per
 * mailbox, each with 20 other messages): the poll task (functions/optimize/inbox/poll-task.ts)
 * reading the result, unsealing every seed's secret, signing in, searching INBOX and Junk by
 * Message-ID, fetching the headers of what it finds and recording the outcome; beside the floor
 * of imapflow alone doing the same sign-ins, searches and fetches at the same concurrency.
 * A third of the copies are in INBOX, a third in Junk, a third nowhere (searched in both folders).
 */
import { ImapFlow } from 'imapflow';
import { handler as pollTask } from '../functions/optimize/inbox/poll-task';
import { createResult, findResult, pendingSeed, type ResultItem } from '../functions/optimize/inbox/results';
import { putSeedMailbox } from '../functions/optimize/inbox/seed-mailboxes';
import { objectId } from '../functions/platform/ids';
import { startSeedImap, type SeedImap } from '../test/support/seed-imap';
import { withLocalMode } from './lib/local';
import { fixed, median, note, print, ratio, table, type TargetCheck } from './lib/report';

const SEEDS = 50;
const FILLER = 20;
const CONCURRENCY = 8;
const ROUNDS = 3;
const MAX_RATIO = 1.3;
const MESSAGE_ID = '<placement-bench-0001@bench.example>';

export interface PlacementPollResult {
  seeds: number;
  oursSeconds: number;
  floorSeconds: number;
  oursRounds: number[];
  floorRounds: number[];
  ratio: number;
  checks: TargetCheck[];
}

const message = (id: string, subject: string) => `Message-ID: ${id}\r\nFrom: sender@bench.example\r\nSubject: ${subject}\r\nAuthentication-Results: mx.bench.example; spf=pass; dkim=pass; dmarc=pass\r\n\r\nHello\r\n`;

async function inBatches<T>(items: readonly T[], size: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** The floor: what the poll asks of one mailbox, with imapflow and nothing else. */
async function bareSearch(seed: SeedImap): Promise<void> {
  const client = new ImapFlow({ host: '127.0.0.1', port: seed.port, secure: false, auth: { user: seed.user, pass: seed.password }, logger: false });
  await client.connect();
  try {
    const folders = await client.list();
    const junk = folders.find((f) => f.specialUse === '\\Junk')!;
    for (const path of ['INBOX', junk.path]) {
      const lock = await client.getMailboxLock(path, { readOnly: true });
      try {
        const uids = await client.search({ header: { 'message-id': MESSAGE_ID } }, { uid: true });
        if (uids && uids.length) {
          await client.fetchOne(String(uids[0]), { headers: true, internalDate: true }, { uid: true });
          return;
        }
      } finally {
        lock.release();
      }
    }
  } finally {
    await client.logout();
  }
}

export async function placementPollBench(): Promise<PlacementPollResult> {
  note(`placement poll: starting ${SEEDS} IMAP servers`);
  const servers = await Promise.all(Array.from({ length: SEEDS }, (_, i) => startSeedImap(`seed${i}@provider${i % 3}.bench.example`)));
  try {
    for (const [i, server] of servers.entries()) {
      for (let n = 0; n < FILLER; n++) await server.deliver(n % 4 === 0 ? 'Junk' : 'INBOX', message(`<filler-${i}-${n}@bench.example>`, `Filler ${n}`));
      if (i % 3 === 0) await server.deliver('INBOX', message(MESSAGE_ID, 'Bench'));
      if (i % 3 === 1) await server.deliver('Junk', message(MESSAGE_ID, 'Bench'));
    }
    return await withLocalMode({ bench: 'placement poll' }, async ({ us, principal }) => {
      await us.run(async () => {
        for (const [i, s] of servers.entries()) await putSeedMailbox({ email: s.email, provider: `provider${i % 3}.bench.example`, imapHost: '127.0.0.1', imapPort: s.port, imapTls: false, imapUser: s.user, credential: { auth: 'password', secret: s.password }, firstName: '', lastName: '' });
      });
      const ours: number[] = [];
      const floor: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        note(`placement poll: round ${round + 1} of ${ROUNDS} (${SEEDS} seed mailboxes)`);
        let started = performance.now();
        await inBatches(servers, CONCURRENCY, bareSearch);
        floor.push((performance.now() - started) / 1000);

        const now = new Date().toISOString();
        const result: ResultItem = {
          accountId: principal.accountId, id: objectId(), targetEmail: 'ibp-bench@seeds.localhost', seedlistId: 'bench', seedlistName: 'Bench', sender: 'sender@bench.example', subject: 'Bench', messageId: MESSAGE_ID, originatingIp: '',
          status: 'processing', deadline: new Date(Date.now() + 3_600_000).toISOString(), seeds: servers.map((s, i) => pendingSeed(s.email, `provider${i % 3}.bench.example`)), spamassassin: null, body: '', createdAt: now, updatedAt: now,
        };
        await us.run(() => createResult(result));
        started = performance.now();
        await us.run(() => pollTask({ step: 'poll', input: { accountId: principal.accountId, resultId: result.id, pollSeconds: 60 } }));
        ours.push((performance.now() - started) / 1000);
        const polled = await us.run(() => findResult(principal.accountId, result.id));
        const found = polled!.seeds.filter((s) => s.state === 'delivered').length;
        const expected = servers.filter((_, i) => i % 3 !== 2).length;
        if (found !== expected) throw new Error(`the poll found ${found} copies, not ${expected}`);
      }
      const r = median(ours) / median(floor);
      return {
        seeds: SEEDS,
        oursSeconds: median(ours),
        floorSeconds: median(floor),
        oursRounds: ours,
        floorRounds: floor,
        ratio: r,
        checks: [{ benchmark: 'placement poll', subject: `seconds per poll round, ours / bare imapflow (${SEEDS} seed mailboxes, median of ${ROUNDS})`, figure: ratio(r), target: `<= ${MAX_RATIO}x`, pass: r <= MAX_RATIO }],
      };
    });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

export function printPlacementPoll(result: PlacementPollResult): void {
  print(`== Placement poll: one round over ${result.seeds} seed mailboxes on local IMAP servers ==`);
  print(
    table([
      ['variant', 'seconds per poll round (median)'],
      ['ours (read result, unseal secrets, sign in, search INBOX and Junk, fetch headers, record)', `${fixed(result.oursSeconds, 3)} s (rounds ${result.oursRounds.map((r) => fixed(r, 3)).join(', ')})`],
      ['floor (imapflow alone: the same sign-ins, searches and fetches)', `${fixed(result.floorSeconds, 3)} s (rounds ${result.floorRounds.map((r) => fixed(r, 3)).join(', ')})`],
      ['ours / floor', `${ratio(result.ratio)} (target <= ${MAX_RATIO}x)`],
    ]),
  );
  print();
}

if (require.main === module) {
  placementPollBench()
    .then(printPlacementPoll)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
