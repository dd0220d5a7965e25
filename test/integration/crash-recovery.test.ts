import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapLimit } from '../../functions/platform/concurrency';
import { startLocalProcess, type LocalProcess } from '../support/local-process';
import { call, eventually, sandboxOf, sdk } from '../support/platform';

// Local mode killed outright (SIGKILL) while it is delivering, then started again on the same
// data dir: every accepted recipient still ends with exactly one final event.
const ADMIN = 'crash-admin-key-0123456789abcdef';
/** Short, so claims the killed host left behind are dead a few seconds after the restart. */
const SEND_WORKER_TIMEOUT_SECONDS = 2;
const MESSAGES = 100;

let dataDir: string;
let host: LocalProcess | undefined;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailplane-crash-'));
});
afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Ev = { event: string; message: { headers: { 'message-id': string } } };

/** Every event of the given kinds carrying the tag, across all pages. */
async function taggedEvents(url: string, domain: string, events: string): Promise<Ev[]> {
  const all: Ev[] = [];
  let page: string | undefined = `${url}/v3/${domain}/events?tags=crash&event=${encodeURIComponent(events)}&limit=300`;
  while (page) {
    const res: { json: { items: Ev[]; paging: { next: string } } } = (await call(page, { key: ADMIN })) as never;
    all.push(...res.json.items);
    page = res.json.items.length ? res.json.paging.next : undefined;
  }
  return all;
}

const countBy = (events: Ev[]) => {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.message.headers['message-id'], (counts.get(e.message.headers['message-id']) ?? 0) + 1);
  return counts;
};

it('gives every accepted recipient exactly one final event after a kill mid-delivery and a restart', async () => {
  host = await startLocalProcess({ dataDir, adminKey: ADMIN, sendWorkerTimeoutSeconds: SEND_WORKER_TIMEOUT_SECONDS });
  const mg = sdk(host.url, ADMIN);
  const sandbox = await sandboxOf(mg);
  const ids = await mapLimit(Array.from({ length: MESSAGES }, (_, i) => i), 16, async (i) => {
    const sent = await mg.messages.create(sandbox, { from: `f@${sandbox}`, to: `r${i}@example.com`, subject: `crash ${i}`, text: 'x', 'o:tag': 'crash' } as never);
    return sent.id!.replace(/^<|>$/g, '');
  });
  // Killed the moment the last message is accepted: its queue still holds most of them.
  await host.kill();

  host = await startLocalProcess({ dataDir, adminKey: ADMIN, sendWorkerTimeoutSeconds: SEND_WORKER_TIMEOUT_SECONDS });
  const url = host.url;
  // The kill did land mid-delivery: most recipients had no final event yet.
  expect(countBy(await taggedEvents(url, sandbox, 'delivered OR failed')).size).toBeLessThan(MESSAGES / 2);
  expect(countBy(await taggedEvents(url, sandbox, 'accepted')).size).toBe(MESSAGES);
  const finals = await eventually(async () => {
    const found = countBy(await taggedEvents(url, sandbox, 'delivered OR failed'));
    return found.size === MESSAGES ? found : undefined;
  });
  // Every one settled, and none twice.
  expect([...finals.keys()].sort()).toEqual([...ids].sort());
  expect([...finals].filter(([, count]) => count !== 1)).toEqual([]);
});
