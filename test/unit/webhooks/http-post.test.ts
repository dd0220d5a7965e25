import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PUBLIC_ONLY } from '../../../functions/webhooks/address-policy';
import { DeliveryError, postJson } from '../../../functions/webhooks/http-post';
import { PATIENCE_MS } from '../../support/eventually';

// The delivery-time guard: the address actually connected to is checked, for IP literals and
// for names alike (a name may resolve somewhere else than when the webhook was saved).
const LOCAL = { allowLoopback: true };

// Names that resolve inside, as a rebinding attacker's would by delivery time; others resolve for real.
const REBOUND: Record<string, string> = { 'rebound.test': '169.254.169.254', 'lan.test': '10.0.0.7' };
jest.mock('node:dns', () => {
  const actual = jest.requireActual<typeof import('node:dns')>('node:dns');
  return {
    ...actual,
    lookup: (hostname: string, options: object, callback: (...args: unknown[]) => void) => {
      const address = REBOUND[hostname];
      if (!address) return actual.lookup(hostname, options, callback as never);
      callback(null, [{ address, family: 4 }]);
    },
  };
});

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('late'), 2000).unref();
    else res.writeHead(201).end('created');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as DeliveryError;
  }
  throw new Error('expected a refusal');
};

it.each(['http://127.0.0.1:PORT/', 'http://localhost:PORT/'])('posts to %s and reads the answer when loopback is allowed', async (template) => {
  expect(await postJson(template.replace('PORT', String(port)), '{}', { timeoutMs: PATIENCE_MS, policy: LOCAL })).toEqual({ status: 201, body: 'created' });
});

it.each([`http://127.0.0.1:PORT/`, `http://[::ffff:127.0.0.1]:PORT/`, `http://localhost:PORT/`])('refuses %s before connecting when they are not', async (template) => {
  const error = await refusal(postJson(template.replace('PORT', String(port)), '{}', { timeoutMs: 1000, policy: PUBLIC_ONLY }));
  expect(error).toBeInstanceOf(DeliveryError);
  expect(error.kind).toBe('forbidden-address');
  expect(error.message).toMatch(/loopback/);
});

it('gives up on a receiver that does not answer in time', async () => {
  const error = await refusal(postJson(`http://127.0.0.1:${port}/slow`, '{}', { timeoutMs: 200, policy: LOCAL }));
  expect([error.kind, error.message]).toEqual(['timeout', 'timed out']);
});

describe.each([
  ['public only', PUBLIC_ONLY],
  ['loopback allowed', LOCAL],
])('whatever the policy (%s)', (_, policy) => {
  it.each([
    ['http://169.254.169.254/latest/meta-data', /^169\.254\.169\.254 is a cloud metadata address/],
    ['http://[fd00:ec2::254]/latest/meta-data', /^fd00:ec2::254 is a cloud metadata address/],
    ['http://[fe80::1]/hook', /^fe80::1 is a link-local address/],
    ['http://10.0.0.1/hook', /^10\.0\.0\.1 is a private address/],
    // Resolved at delivery: the name pointed elsewhere when the webhook was saved.
    ['http://rebound.test/latest/meta-data', /^rebound\.test resolves to a cloud metadata address/],
    ['http://lan.test/hook', /^lan\.test resolves to a private address/],
  ])('refuses %s before connecting', async (url, message) => {
    const error = await refusal(postJson(url, '{}', { timeoutMs: 1000, policy }));
    expect([error.kind, error.message]).toEqual(['forbidden-address', expect.stringMatching(message)]);
  });
});

it('never hands a kept-alive loopback connection to a request whose policy refuses loopback', async () => {
  const url = `http://localhost:${port}/`;
  expect((await postJson(url, '{}', { timeoutMs: PATIENCE_MS, policy: LOCAL })).status).toBe(201);
  const error = await refusal(postJson(url, '{}', { timeoutMs: 1000, policy: PUBLIC_ONLY }));
  expect([error.kind, error.message]).toEqual(['forbidden-address', expect.stringMatching(/loopback/)]);
});
