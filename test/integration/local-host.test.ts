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
  // The SES stand-in's state file keeps the domain's DKIM key as everything else keeps secrets: sealed.
  const sesState = readFileSync(join(dataDir, 'us', 'ses-identities.json'), 'utf8');
  expect(sesState).not.toContain('privateKeyBase64');
  expect((JSON.parse(sesState) as { identities: Array<{ name: string; privateKeySealed?: string }> }).identities.find((i) => i.name === 'kept.example.com')!.privateKeySealed).toMatch(/^v1\./);

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

it('never reuses a verdict on routes that change credentials: a revoked key cannot mint another', async () => {
  const platform = await startLocal({ port: 0, dataDir: null, bootstrapApiKey: 'revoke-key', authorizerCacheSeconds: 60 });
  try {
    const mg = sdk(platform.us.url, 'revoke-key');
    const keys = (mg as unknown as { apiKeys: { create(f: Record<string, string>): Promise<{ id: string; secret: string }> } }).apiKeys;
    const doomed = await keys.create({ role: 'admin' });
    // Its verdict is cached on both kinds of route before it is revoked.
    expect((await call(`${platform.us.url}/v4/domains`, { key: doomed.secret })).status).toBe(200);
    const minted = await call(`${platform.us.url}/v1/keys`, { method: 'POST', key: doomed.secret, ...form({ role: 'basic' }) });
    expect(minted.status).toBe(200);
    expect((await call(`${platform.us.url}/v1/keys/${doomed.id}`, { method: 'DELETE', key: 'revoke-key' })).status).toBe(200);

    const after = await call(`${platform.us.url}/v1/keys`, { method: 'POST', key: doomed.secret, ...form({ role: 'admin' }) });
    expect(after.status).toBe(401);
    expect((await call(`${platform.us.url}/v3/domains/any.example/credentials`, { method: 'POST', key: doomed.secret, ...form({ login: 'x', password: 'long-enough-password' }) })).status).toBe(401);
    expect((await call(`${platform.us.url}/v5/accounts/http_signing_key`, { key: doomed.secret })).status).toBe(401);
    // Other routes may honour it until the cached verdict expires (AUTHORIZER_CACHE_SECONDS).
    expect((await call(`${platform.us.url}/v4/domains`, { key: doomed.secret })).status).toBe(200);
  } finally {
    await platform.close();
  }
});

it('serves both regions from `npm start` and stops cleanly on SIGTERM', async () => {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'bin/local.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // However long it takes this machine to start: the test's own timeout is the only bound.
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stderr}`)));
    child.stdout.on('data', () => /EU API: (\S+)/.test(stdout) && resolve());
  });
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
}, 120_000);

const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' });

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
