import { ACMClient, DeleteCertificateCommand, DescribeCertificateCommand, GetCertificateCommand, RequestCertificateCommand } from '@aws-sdk/client-acm';
import { X509Certificate } from 'node:crypto';
import { AcmStandIn } from '../../../lib/local/acm-standin';
import { localCa } from '../../../lib/local/local-ca';

// The ACM stand-in through the real SDK client: DNS validation, issue, renewal, expiry, deletion.

const ca = localCa(null);
const published = new Map<string, string>();

async function withStandIn(options: { validityMs?: number; renewBeforeMs?: number }, test: (acm: ACMClient, standIn: AcmStandIn) => Promise<void>) {
  const standIn = new AcmStandIn({ ca, region: 'us-east-1', resolveCname: async (name) => [published.get(name.replace(/\.$/, '')) ?? ''].filter(Boolean), ...options });
  const acm = new ACMClient({ region: 'us-east-1', endpoint: await standIn.listen() });
  try {
    await test(acm, standIn);
  } finally {
    acm.destroy();
    await standIn.close();
  }
}

const request = (acm: ACMClient, token = 'token1') =>
  acm.send(new RequestCertificateCommand({ DomainName: 'email.mg.example.com', ValidationMethod: 'DNS', IdempotencyToken: token, Tags: [{ Key: 'mailplane:tracking-host', Value: 'email.mg.example.com' }] }));
const describe_ = async (acm: ACMClient, arn: string) => (await acm.send(new DescribeCertificateCommand({ CertificateArn: arn }))).Certificate!;

test('issues once the validation CNAME resolves, signed by the local CA, and answers a repeated request with the same certificate', async () => {
  await withStandIn({}, async (acm) => {
    const { CertificateArn: arn } = await request(acm);
    expect(arn).toMatch(/^arn:aws:acm:us-east-1:000000000000:certificate\/[0-9a-f-]{36}$/);
    expect((await request(acm)).CertificateArn).toBe(arn);
    const pending = await describe_(acm, arn!);
    expect(pending.Status).toBe('PENDING_VALIDATION');
    const record = pending.DomainValidationOptions![0]!.ResourceRecord!;
    expect(record).toMatchObject({ Type: 'CNAME', Name: expect.stringMatching(/^_[0-9a-f]{32}\.email\.mg\.example\.com\.$/), Value: expect.stringMatching(/^_[0-9a-f]{32}\.[0-9a-f]{10}\.acm-validations\.aws\.$/) });
    await expect(acm.send(new GetCertificateCommand({ CertificateArn: arn }))).rejects.toMatchObject({ name: 'RequestInProgressException' });

    published.set(record.Name!.replace(/\.$/, ''), record.Value!.replace(/\.$/, ''));
    const issued = await describe_(acm, arn!);
    expect(issued).toMatchObject({ Status: 'ISSUED', DomainName: 'email.mg.example.com', Type: 'AMAZON_ISSUED' });
    expect(issued.NotAfter!.getTime() - Date.now()).toBeGreaterThan(394 * 86_400_000);
    const { Certificate, CertificateChain } = await acm.send(new GetCertificateCommand({ CertificateArn: arn }));
    const leaf = new X509Certificate(Certificate!);
    expect(leaf.subjectAltName).toBe('DNS:email.mg.example.com');
    expect(leaf.verify(new X509Certificate(CertificateChain!).publicKey)).toBe(true);
  });
});

afterEach(() => jest.useRealTimers());

/** Everything but Date runs for real (sockets, the SDK's timers): the stand-in's clock moves only when the test moves it. */
function freezeDate(): { now: number; advance(ms: number): void } {
  jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  const clock = { now: Date.now(), advance: (ms: number) => jest.setSystemTime((clock.now += ms)) };
  return clock;
}

test('renews a certificate in use within its renewal window while the record stays published; one not renewed expires', async () => {
  const clock = freezeDate();
  // Valid 3 s, renewed in its last 2.5 s: 0.6 s after issue falls in the window.
  await withStandIn({ validityMs: 3000, renewBeforeMs: 2500 }, async (acm, standIn) => {
    const { CertificateArn: arn } = await request(acm, 'token2');
    const record = (await describe_(acm, arn!)).DomainValidationOptions![0]!.ResourceRecord!;
    published.set(record.Name!.replace(/\.$/, ''), record.Value!.replace(/\.$/, ''));
    const first = await describe_(acm, arn!);
    standIn.markInUse(arn!, 'domain-name', true);
    clock.advance(600);
    const renewed = await describe_(acm, arn!);
    expect(renewed.Status).toBe('ISSUED');
    expect(renewed.NotAfter!.getTime()).toBeGreaterThan(first.NotAfter!.getTime());
    expect(renewed.Serial).not.toBe(first.Serial);
    expect(renewed.RenewalSummary).toMatchObject({ RenewalStatus: 'SUCCESS' });
    // In use, it cannot be deleted; let go, it stops being renewed and lapses.
    await expect(acm.send(new DeleteCertificateCommand({ CertificateArn: arn }))).rejects.toMatchObject({ name: 'ResourceInUseException' });
    standIn.markInUse(arn!, 'domain-name', false);
    clock.advance(3100);
    expect((await describe_(acm, arn!)).Status).toBe('EXPIRED');
    await acm.send(new DeleteCertificateCommand({ CertificateArn: arn }));
    await expect(describe_(acm, arn!)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
