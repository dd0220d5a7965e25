import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import type { LocalPlatform } from '../../lib/local/platform';
import type { RegionHost } from '../../lib/local/region-host';
import { decoded, mimeOf } from '../support/mail';
import { call, eventsOf, eventually, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';

// Tracking TLS certificates (POST/PUT /v2/x509/{host}, GET .../status) through the workflow in
// local mode: ACM's stand-in issues once the validation CNAME resolves in the region's DNS, and
// the tracking host is then served over HTTPS on the region's TLS port, trusting the local CA.

type Status = { status: string; error?: string; certificate?: string; validation_record?: { name: string; value: string; record_type: string }; expires_at?: string };
type Rec = { name: string; record_type: string; value: string; valid: string };

/** GET over HTTPS to 127.0.0.1 asking for `host` (SNI and Host), trusting only `ca` (`false`: whatever is served). */
function httpsGet(region: RegionHost, url: string, ca: string | undefined | false): Promise<{ status: number; location?: string; peer: X509Certificate; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: Number(target.port || region.trackingTlsPort), path: `${target.pathname}${target.search}`, servername: target.hostname, headers: { host: target.host }, ...(ca ? { ca: [ca] } : ca === false ? { rejectUnauthorized: false } : {}), agent: false },
      (res) => {
        const peer = new X509Certificate((res.socket as import('node:tls').TLSSocket).getPeerCertificate().raw);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, peer, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const status = (region: RegionHost, host: string) => call(`${region.url}/v2/x509/${host}/status`);

async function statusBecomes(region: RegionHost, host: string, wanted: string): Promise<Status> {
  return eventually(async () => {
    const res = await status(region, host);
    return res.json.status === wanted ? (res.json as Status) : undefined;
  });
}

/** Creates a domain whose tracking CNAME is published (as its owner would) and verified. */
async function domainWithTrackingCname(region: RegionHost, name: string): Promise<string> {
  const mg = sdk(region.url);
  await mg.domains.create({ name, dkim_key_size: '1024' } as never);
  region.dns.publish({ name: `email.${name}`, type: 'CNAME', value: 'localhost' });
  const verified = await mg.domains.verify(name);
  expect((verified.sending_dns_records as unknown as Rec[]).find((r) => r.name === `email.${name}`)).toMatchObject({ valid: 'valid', value: 'localhost' });
  return `email.${name}`;
}

/** Publishes the validation CNAME a job's status names, once ACM has named it. */
async function publishValidation(region: RegionHost, host: string): Promise<{ name: string; value: string }> {
  const record = await eventually(async () => ((await status(region, host)).json as Status).validation_record);
  expect(record).toMatchObject({ record_type: 'CNAME', name: expect.stringMatching(new RegExp(`^_[0-9a-f]{32}\\.${host.replace(/\./g, '\\.')}$`)), value: expect.stringMatching(/\.acm-validations\.aws$/) });
  region.dns.publish({ name: record.name, type: 'CNAME', value: record.value });
  return record;
}

describe('with ACM issuing certificates for a year', () => {
  let platform: LocalPlatform;
  let mg: ReturnType<typeof sdk>;

  beforeAll(async () => {
    platform = await startTestPlatform({ workflowRetryIntervalMs: 20, env: { CERTIFICATE_POLL_SECONDS: '1' } });
    mg = sdk(platform.us.url);
  });
  afterAll(() => platform.close());

  it('refuses with the errors of Mailgun before there is anything to issue', async () => {
    const x509 = mg.domains.domainTracking;
    // No job yet: Mailgun's Description, and `message` for mailgun.js to show.
    expect(await sdkError(x509.get('email.nowhere.example.com'))).toEqual({ status: 404, details: 'Please initiate x509 key pair generation at POST /v2/x509/email.nowhere.example.com' });
    const raw = await status(platform.us, 'email.nowhere.example.com');
    expect(raw.json).toEqual({ Description: 'Please initiate x509 key pair generation at POST /v2/x509/email.nowhere.example.com', message: expect.any(String) });
    expect(await sdkError(x509.generate('email.nowhere.example.com'))).toEqual({ status: 404, details: 'domain not found' });
    expect(await sdkError(x509.regenerate('email.nowhere.example.com'))).toEqual({ status: 404, details: 'x509 cert not found' });

    // A host that is not the domain's tracking host (its web_prefix is email).
    await mg.domains.create({ name: 'refusals.example.com', dkim_key_size: '1024' } as never);
    expect(await sdkError(x509.generate('links.refusals.example.com'))).toEqual({ status: 404, details: 'domain not found' });
    // The tracking host's CNAME is not published, then published elsewhere.
    const invalid = await call(`${platform.us.url}/v2/x509/email.refusals.example.com`, { method: 'POST' });
    expect([invalid.status, invalid.json]).toEqual([400, { Reason: 'invalid CNAME record', message: 'invalid CNAME record' }]);
    platform.us.dns.publish({ name: 'email.refusals.example.com', type: 'CNAME', value: 'elsewhere.example.net' });
    expect(await sdkError(x509.generate('email.refusals.example.com'))).toEqual({ status: 400, details: 'invalid CNAME record' });
    expect(await sdkError(x509.regenerate('email.refusals.example.com'))).toEqual({ status: 404, details: 'x509 cert not found' });

    // Sandbox domains are the platform's: no certificates for them.
    const sandbox = await sandboxOf(mg);
    const payment = await call(`${platform.us.url}/v2/x509/email.${sandbox}`, { method: 'POST' });
    expect([payment.status, payment.json.Reason]).toEqual([402, 'upgrade your account to enable this feature']);

    // https tracking needs the certificate first.
    expect(await sdkError(mg.domains.update('refusals.example.com', { web_scheme: 'https' } as never))).toEqual({
      status: 400,
      details: 'web_scheme https needs an active tracking certificate for email.refusals.example.com',
    });
  });

  it('issues through the workflow once the validation record resolves, serves the tracking host over HTTPS, and lets links use https', async () => {
    const region = platform.us;
    const host = await domainWithTrackingCname(region, 'certs.example.com');

    const started = await mg.domains.domainTracking.generate(host);
    expect(started).toEqual({ status: 202, message: 'Initiated x509 key pair generation', location: `/v2/x509/${host}/status` });
    // One job at a time: POST again, PUT while it runs.
    expect(await sdkError(mg.domains.domainTracking.generate(host))).toEqual({ status: 409, details: `x509 key pair generation has already been initiated for ${host}` });
    const busy = await call(`${region.url}/v2/x509/${host}`, { method: 'PUT' });
    expect([busy.status, busy.json.Description]).toEqual([429, `x509 key pair generation job is already in progress for ${host}`]);

    // Waiting for the validation record: it is in the status and among the domain's records.
    const processing = (await status(region, host)).json as Status;
    expect(processing).toMatchObject({ status: 'processing', error: 'Waiting for x509 key pair generation' });
    const validation = await publishValidation(region, host);
    const records = (await mg.domains.get('certs.example.com')).sending_dns_records as unknown as Rec[];
    expect(records).toContainEqual(expect.objectContaining({ record_type: 'CNAME', name: validation.name, value: validation.value }));

    const active = await statusBecomes(region, host, 'active');
    expect(active).not.toHaveProperty('error');
    // The PEM is the host's, signed by the local CA, valid for about a year.
    const leaf = new X509Certificate(active.certificate!);
    expect(leaf.subjectAltName).toBe(`DNS:${host}`);
    expect(leaf.verify(new X509Certificate(platform.ca.certificatePem).publicKey)).toBe(true);
    expect(Date.parse(active.expires_at!) - Date.now()).toBeGreaterThan(390 * 86_400_000);
    // The mailgun.js shape: the body, with the HTTP status beside it.
    expect(await mg.domains.domainTracking.get(host)).toMatchObject({ status: 'active', certificate: active.certificate, responseStatusCode: 200 });
    // A valid certificate is not regenerated.
    const valid = await call(`${region.url}/v2/x509/${host}`, { method: 'PUT' });
    expect([valid.status, valid.json.Description]).toEqual([409, `x509 certificate is still valid until ${new Date(active.expires_at!).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`]);

    // Now https tracking is accepted, and links use the tracking host over https on the TLS port.
    expect(await mg.domains.update('certs.example.com', { web_scheme: 'https' } as never)).toMatchObject({ web_scheme: 'https' });
    await mg.domains.domainTracking.updateTracking('certs.example.com', 'click', { active: true } as never);
    await mg.domains.verify('certs.example.com');
    const sent = await mg.messages.create('certs.example.com', { from: 'me@certs.example.com', to: 'reader@example.com', subject: 'tls', html: '<a href="https://example.com/landing">go</a>' } as never);
    const mime = decoded(await mimeOf(region, sent.id!, 'reader@example.com'));
    const link = new RegExp(`https://${host.replace(/\./g, '\\.')}:${region.trackingTlsPort}/c/[A-Za-z0-9_.-]+`).exec(mime)?.[0];
    expect(link).toBeDefined();

    // Fetched as a mail client would: over HTTPS, trusting only the local CA, with the host's own certificate.
    const click = await httpsGet(region, link!, platform.ca.certificatePem);
    expect([click.status, click.location]).toEqual([302, 'https://example.com/landing']);
    expect(click.peer.serialNumber).toBe(leaf.serialNumber);
    await eventually(async () => (await eventsOf(region.url, 'certs.example.com', sent.id!)).some((e) => e.event === 'clicked'));
    // Not trusted without the local CA; not served at all for a host without a certificate.
    await expect(httpsGet(region, link!, undefined)).rejects.toThrow(/self[- ]signed|unable to get local issuer|unable to verify/i);
    await expect(httpsGet(region, `https://email.refusals.example.com:${region.trackingTlsPort}/c/x`, platform.ca.certificatePem)).rejects.toThrow();
    // Only the tracking routes are served there.
    expect((await httpsGet(region, `https://${host}:${region.trackingTlsPort}/v4/domains`, platform.ca.certificatePem)).status).toBe(404);
  });

  it('takes a certificate down when its tracking host moves, and when its domain is deleted', async () => {
    const region = platform.us;
    const host = await domainWithTrackingCname(region, 'moving.example.com');
    await mg.domains.domainTracking.generate(host);
    await publishValidation(region, host);
    await statusBecomes(region, host, 'active');
    await mg.domains.update('moving.example.com', { web_scheme: 'https' } as never);
    const served = region.apiGateway.route(host)!;
    expect(served).toMatchObject({ apiId: 'tracking' });

    // https stays only with a certificate for the new host.
    region.dns.publish({ name: 'links.moving.example.com', type: 'CNAME', value: 'localhost' });
    expect((await sdkError(mg.domains.update('moving.example.com', { web_prefix: 'links' } as never))).details).toBe('web_scheme https needs an active tracking certificate for links.moving.example.com');
    expect(await mg.domains.update('moving.example.com', { web_prefix: 'links', web_scheme: 'http' } as never)).toMatchObject({ web_prefix: 'links', web_scheme: 'http' });
    await eventually(async () => region.apiGateway.route(host) === undefined && !(await region.acm.keyPair(served.certificateArn)));
    expect((await status(region, host)).status).toBe(404);

    // The new host gets its own; deleting the domain takes it down.
    const moved = 'links.moving.example.com';
    await mg.domains.domainTracking.generate(moved);
    await publishValidation(region, moved);
    await statusBecomes(region, moved, 'active');
    const movedArn = region.apiGateway.route(moved)!.certificateArn;
    await mg.domains.destroy('moving.example.com');
    await eventually(async () => region.apiGateway.route(moved) === undefined && !(await region.acm.keyPair(movedArn)));
  });
});

describe('with short clocks: a 5 s deadline and certificates valid for 4 s', () => {
  let platform: LocalPlatform;
  let mg: ReturnType<typeof sdk>;

  beforeAll(async () => {
    platform = await startTestPlatform({
      workflowRetryIntervalMs: 20,
      certificateValidityMs: 4000,
      certificateRenewBeforeMs: 0,
      env: { CERTIFICATE_POLL_SECONDS: '1', CERTIFICATE_DEADLINE_SECONDS: '5' },
    });
    mg = sdk(platform.eu.url);
  });
  afterAll(() => platform.close());

  it('ends a job whose validation record never appears in error, with the reason, and lets it be started again', async () => {
    const region = platform.eu;
    const host = await domainWithTrackingCname(region, 'late.example.com');
    await mg.domains.domainTracking.generate(host);
    const failed = await statusBecomes(region, host, 'error');
    expect(failed.error).toMatch(/^TLS x509 key pair generation failed: ACM did not issue the certificate by .*: the CNAME record _[0-9a-f]{32}\.email\.late\.example\.com -> .*\.acm-validations\.aws was not found in DNS$/);
    // A failed job may be started again (POST), and this time the record is there.
    expect(await mg.domains.domainTracking.generate(host)).toMatchObject({ status: 202 });
    await publishValidation(region, host);
    expect(await statusBecomes(region, host, 'active')).toMatchObject({ certificate: expect.stringContaining('BEGIN CERTIFICATE') });
  });

  it('reports an expired certificate as expired, and PUT regenerates it', async () => {
    const region = platform.eu;
    const host = await domainWithTrackingCname(region, 'expiring.example.com');
    await mg.domains.domainTracking.generate(host);
    await publishValidation(region, host);
    const first = await statusBecomes(region, host, 'active');
    const firstArn = region.apiGateway.route(host)!.certificateArn;
    const expired = await statusBecomes(region, host, 'expired');
    expect(expired).toMatchObject({ error: 'x509 certificate has expired', certificate: first.certificate });
    // https is not accepted on a lapsed certificate.
    expect((await sdkError(mg.domains.update('expiring.example.com', { web_scheme: 'https' } as never))).status).toBe(400);

    expect(await mg.domains.domainTracking.regenerate(host)).toEqual({ status: 202, message: 'Initiated x509 key pair generation', location: `/v2/x509/${host}/status` });
    // A new certificate (with its own validation record), served in place of the old, which is retired.
    await publishValidation(region, host);
    const second = await statusBecomes(region, host, 'active');
    expect(second.certificate).not.toBe(first.certificate);
    const now = region.apiGateway.route(host)!;
    expect(now.certificateArn).not.toBe(firstArn);
    await eventually(async () => !(await region.acm.keyPair(firstArn)));
    // Which certificate is served (not whether it is still valid: it lives 4 s, and the machine may be slow).
    const served = await httpsGet(region, `https://${host}:${region.trackingTlsPort}/o/forged`, false);
    expect([served.status, served.peer.serialNumber]).toEqual([404, new X509Certificate(second.certificate!).serialNumber]);
  });
});
