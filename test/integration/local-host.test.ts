import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocal } from '../../lib/local/platform';
import { PATIENCE_MS } from '../support/eventually';
import { call, sandboxOf, sdk } from '../support/platform';

// What a new user meets with `npm start`: the data dir, the admin key, restarts and stopping.
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailplane-local-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

it('generates an admin key on first start, saves it owner-only, and keeps data across restarts', async () => {
  const first = await startLocal({ port: 0, dataDir });
  expect(first.adminKeyGenerated).toBe(true);
  expect(first.adminKey).toMatch(/^[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}$/);
  const keyFile = join(dataDir, 'admin-api-key');
  expect(readFileSync(keyFile, 'utf8').trim()).toBe(first.adminKey);
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  await sdk(first.us.url, first.adminKey).domains.create({ name: 'kept.example.com', dkim_key_size: '1024' } as never);
  const sandbox = await sandboxOf(sdk(first.us.url, first.adminKey));
  await first.close();

  const second = await startLocal({ port: 0, dataDir });
  try {
    expect(second.adminKeyGenerated).toBe(false);
    expect(second.adminKey).toBe(first.adminKey);
    const names = (await sdk(second.us.url, second.adminKey).domains.list()).map((d) => d.name).sort();
    expect(names).toEqual(['kept.example.com', sandbox].sort());
    // The SES stand-in kept its identities too.
    expect(second.us.ses.identity('kept.example.com')).toBeDefined();
  } finally {
    await second.close();
  }
});

it('honours BOOTSTRAP_API_KEY in both regions', async () => {
  const platform = await startLocal({ port: 0, dataDir, bootstrapApiKey: 'my-chosen-key' });
  try {
    for (const url of [platform.us.url, platform.eu.url]) expect((await sdk(url, 'my-chosen-key').domains.list()).length).toBe(1);
  } finally {
    await platform.close();
  }
});

it('refuses a second start on a data dir in use, instead of hanging', async () => {
  const platform = await startLocal({ port: 0, dataDir });
  try {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'bin/local.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Lock ownership is per process: the test runner holds it, so the child must refuse.
    expect(code).toBe(1);
    expect(Buffer.concat(stderr).toString()).toContain(`is in use by process ${process.pid}`);
  } finally {
    await platform.close();
  }
});

it('reuses an authorizer verdict for the cache lifetime, as API Gateway does', async () => {
  const platform = await startLocal({ port: 0, dataDir: null, bootstrapApiKey: 'cache-key', authorizerCacheSeconds: 60 });
  try {
    const mg = sdk(platform.us.url, 'cache-key');
    const created = await (mg as unknown as { apiKeys: { create(f: Record<string, string>): Promise<{ id: string; secret: string }> } }).apiKeys.create({ role: 'basic' });
    expect((await call(`${platform.us.url}/v4/domains`, { key: created.secret })).status).toBe(200);
    await call(`${platform.us.url}/v1/keys/${created.id}`, { method: 'DELETE', key: 'cache-key' });
    // Within the cache lifetime the deleted key still passes, exactly as on AWS.
    expect((await call(`${platform.us.url}/v4/domains`, { key: created.secret })).status).toBe(200);
  } finally {
    await platform.close();
  }
});

it('serves both regions from `npm start` and stops cleanly on SIGTERM, without the AWS SDK\'s Node-version notice', async () => {
  // Without the switch jest's setup set here: bin/local.ts must turn the notice off itself.
  const { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _, ...env } = process.env;
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'bin/local.ts'], {
    env: { ...env, DATA_DIR: dataDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = Date.now();
  while (!/EU API: (\S+)/.test(stdout)) {
    if (Date.now() - started > PATIENCE_MS) throw new Error(`npm start did not come up: ${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const usUrl = /US API: (\S+)/.exec(stdout)![1]!;
  const euUrl = /EU API: (\S+)/.exec(stdout)![1]!;
  const key = /Admin API key: (\S+)/.exec(stdout)![1]!;
  expect(usUrl).not.toBe(euUrl);
  expect((await call(`${usUrl}/v4/domains`, { key })).status).toBe(200);
  expect((await call(`${euUrl}/v4/domains`, { key })).status).toBe(200);
  expect(await call(`${usUrl}/v9/nothing`, { key })).toMatchObject({ status: 404, contentType: 'application/json', json: { message: 'Not Found' } });
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  expect(() => statSync(join(dataDir, 'local.pid'))).toThrow();
  // Both regions wrote through SDK clients by now, which is when the SDK would print it.
  expect(stderr).not.toContain('NodeVersionSupportWarning');
});

/** A port that was free a moment ago, for a host that must be reached before it says where it is. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('answers a request that arrives while the host is still starting', async () => {
  // Only the port knocked on is fixed: every other listener picks a free one, so no neighbour's
  // port (a fixed default, or port + 443 for tracking TLS) can collide with it.
  const port = await freePort();
  const others = { euPort: 0, smtpPort: 0, smtpsPort: 0, inboundSmtpPort: 0, trackingTlsPort: 0, euTrackingTlsPort: 0 };
  const starting = startLocal({ port, ...others, dataDir: null, bootstrapApiKey: 'early-key' });
  // Knock from the moment the port opens: the first connection accepted must get an answer.
  let first: { status: number } | undefined;
  const knocking = Date.now();
  while (!first) {
    if (Date.now() - knocking > PATIENCE_MS) throw new Error('the port never opened');
    first = await call(`http://127.0.0.1:${port}/v4/domains`, { key: 'early-key' }).catch(() => undefined);
    if (!first) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const platform = await starting;
  try {
    expect(first.status).toBe(200);
  } finally {
    await platform.close();
  }
});

it('lets a request in flight finish before it stops', async () => {
  const platform = await startLocal({ port: 0, dataDir: null, bootstrapApiKey: 'drain-key' });
  const sandbox = await sandboxOf(sdk(platform.us.url, 'drain-key'));
  const body = new URLSearchParams({ from: `f@${sandbox}`, to: 'drain@example.com', subject: 'in flight', text: 'x' }).toString();
  // Half the body is sent, then the host is told to stop, then the rest follows.
  const reply = new Promise<number>((resolve, reject) => {
    const req = request(`${platform.us.url}/v3/${sandbox}/messages`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Basic ${Buffer.from('api:drain-key').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      closing = platform.close();
      setTimeout(() => req.end(body.slice(10)), 200);
    }, 200);
  });
  let closing: Promise<void> | undefined;
  expect(await reply).toBe(200);
  await closing;
  // And nothing new is taken once it has stopped.
  await expect(call(`${platform.us.url}/v4/domains`, { key: 'drain-key' })).rejects.toThrow();
});

it("survives malformed and cut-off requests to its stand-ins' own ports", async () => {
  const platform = await startLocal({ port: 0, dataDir: null, bootstrapApiKey: 'standin-key' });
  try {
    const { SES_ENDPOINT, SQS_ENDPOINT, SFN_ENDPOINT, DYNAMODB_ENDPOINT } = platform.us.env;
    for (const endpoint of [SES_ENDPOINT, SQS_ENDPOINT, SFN_ENDPOINT, DYNAMODB_ENDPOINT]) {
      const garbled = await call(`${endpoint}/v2/email/outbound-emails`, { method: 'POST', key: null, body: '{not json', contentType: 'application/json', headers: { 'x-amz-target': 'AmazonSQS.SendMessage' } });
      expect(garbled.status).toBeGreaterThanOrEqual(400);
      // A client that goes away halfway through its body.
      await new Promise<void>((resolve) => {
        const req = request(`${endpoint}/v2/email/outbound-emails`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': '1000' } });
        req.on('error', () => resolve());
        req.write('{"Content":');
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await call(`${platform.us.url}/v4/domains`, { key: 'standin-key' })).status).toBe(200);
  } finally {
    await platform.close();
  }
});
