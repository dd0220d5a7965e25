import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventsOf, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// The sandbox domain as Mailgun's behaves: it sends only to the account's authorized recipients,
// at most five, each activated through the confirmation link mailed to it by the platform itself.
let platform: LocalPlatform;
let sandbox: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { SANDBOX_RECIPIENTS: 'authorized' } });
  sandbox = await sandboxOf(sdk(platform.us.url));
});
afterAll(() => platform.close());

const url = () => platform.us.url;
const recipients = () => call(`${url()}/v5/sandbox/auth_recipients`);
const add = (email: string) => call(`${url()}/v5/sandbox/auth_recipients?email=${encodeURIComponent(email)}`, { method: 'POST' });

/** The confirmation link the platform mailed to an address, as the SES stand-in was handed it. */
async function linkMailedTo(email: string): Promise<string> {
  return eventually(async () => {
    const mail = [...platform.us.ses.sent].reverse().find((m) => m.destinations.includes(email));
    const text = mail?.raw.toString('utf8').replace(/=\r?\n/g, '');
    return text?.match(/https?:\/\/\S+\/v5\/sandbox\/auth_recipients\/confirm\/[\w-]+/)?.[0];
  });
}

async function outcomeOf(id: string, recipient: string): Promise<{ event: string; severity?: string; 'delivery-status'?: { message: string } }> {
  return eventually(async () => (await eventsOf<{ event: string; recipient: string }>(url(), sandbox, id)).find((e) => e.recipient === recipient && e.event !== 'accepted'));
}

const send = async (to: string) => (await sdk(url()).messages.create(sandbox, { from: `test@${sandbox}`, to, subject: 'Hi', text: 'Test' })).id!;

test('an address gets a confirmation mail; until it opens the link, sandbox mail to it fails', async () => {
  expect((await recipients()).json).toEqual({ recipients: [] });
  const added = await add('Tester@Example.com');
  expect(added.json).toEqual({ recipient: { email: 'tester@example.com', activated: false } });
  const link = await linkMailedTo('tester@example.com');

  const before = await outcomeOf(await send('tester@example.com'), 'tester@example.com');
  expect(before).toMatchObject({ event: 'failed', severity: 'permanent', 'delivery-status': { message: expect.stringContaining('authorized recipients') } });

  // The link needs no key: the token mailed to the address is the credential.
  const page = await call(link.replace(/^https?:\/\/[^/]+/, url()), { key: null });
  expect(page.status).toBe(200);
  expect(page.contentType).toContain('text/html');
  expect(page.text).toContain('tester@example.com will now receive');
  expect((await recipients()).json).toEqual({ recipients: [{ email: 'tester@example.com', activated: true }] });

  const after = await outcomeOf(await send('tester@example.com'), 'tester@example.com');
  expect(after.event).toBe('delivered');
  expect((await outcomeOf(await send('stranger@example.com'), 'stranger@example.com')).event).toBe('failed');
  expect((await call(`${url()}/v5/sandbox/auth_recipients/confirm/not-a-token`, { key: null })).status).toBe(404);
  // Opened again, the link still says so.
  expect((await call(link.replace(/^https?:\/\/[^/]+/, url()), { key: null })).status).toBe(200);
});

test('five at most; deleting one makes room, and it stops receiving', async () => {
  for (const n of [1, 2, 3, 4]) expect((await add(`member${n}@example.com`)).status).toBe(200);
  const sixth = await add('one-too-many@example.com');
  expect(sixth).toMatchObject({ status: 400, json: { message: 'Only 5 sandbox recipients are allowed' } });
  expect((await add('not an address')).status).toBe(400);

  expect((await call(`${url()}/v5/sandbox/auth_recipients/tester@example.com`, { method: 'DELETE' })).json).toEqual({ message: 'Sandbox recipient deleted.' });
  expect((await call(`${url()}/v5/sandbox/auth_recipients/tester@example.com`, { method: 'DELETE' })).status).toBe(404);
  expect((await outcomeOf(await send('tester@example.com'), 'tester@example.com')).event).toBe('failed');
  expect((await add('one-more@example.com')).status).toBe(200);
  expect(((await recipients()).json.recipients as unknown[]).length).toBe(5);
});
