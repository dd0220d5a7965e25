import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryError, postJson } from '../../../functions/webhooks/http-post';

// The delivery-time guard: the address actually connected to is checked, for IP literals and
// for names alike (a name may resolve somewhere else than when the webhook was saved).
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

it('posts and reads the answer when internal addresses are allowed', async () => {
  expect(await postJson(`http://127.0.0.1:${port}/`, '{}', { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 201, body: 'created' });
});

it.each([`http://127.0.0.1:PORT/`, `http://[::ffff:127.0.0.1]:PORT/`, `http://localhost:PORT/`])('refuses %s before connecting when they are not', async (template) => {
  const error = await refusal(postJson(template.replace('PORT', String(port)), '{}', { timeoutMs: 1000, allowPrivate: false }));
  expect(error).toBeInstanceOf(DeliveryError);
  expect(error.kind).toBe('forbidden-address');
  expect(error.message).toMatch(/loopback/);
});

it('gives up on a receiver that does not answer in time', async () => {
  const error = await refusal(postJson(`http://127.0.0.1:${port}/slow`, '{}', { timeoutMs: 200, allowPrivate: true }));
  expect([error.kind, error.message]).toEqual(['timeout', 'timed out']);
});
