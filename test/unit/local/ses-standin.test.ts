import { CreateEmailIdentityCommand, PutEmailIdentityDkimSigningAttributesCommand, SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SesStandIn } from '../../../lib/local/ses-standin';

// The SES stand-in keeps what SES keeps across restarts, in the data dir's ses-identities.json.
// A BYODKIM private key is sealed there with the platform key, as every other secret at rest is;
// a file written before that is read, and sealed on the spot.

const ENCRYPTION_KEY = 'local-encryption-key-for-tests';
let dir: string;
let stateFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ses-standin-'));
  stateFile = join(dir, 'ses-identities.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A PKCS #1 RSA key as the platform hands it to SES: its DER in base64, no PEM armour. */
function dkimKey(): { base64: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs1', format: 'der' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return { base64: privateKey.toString('base64'), publicKeyPem: publicKey };
}

async function withStandIn<T>(use: (ses: SESv2Client, standIn: SesStandIn) => Promise<T>): Promise<T> {
  const standIn = new SesStandIn({ file: stateFile, encryptionKey: ENCRYPTION_KEY });
  const ses = new SESv2Client({ region: 'us-east-1', endpoint: await standIn.listen(), credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  try {
    return await use(ses, standIn);
  } finally {
    ses.destroy();
    await standIn.close();
  }
}

const sendFrom = async (ses: SESv2Client, domain: string) => {
  const raw = `From: billing@${domain}\r\nTo: ann@example.com\r\nSubject: Statement\r\nMessage-ID: <1@${domain}>\r\n\r\nHello\r\n`;
  await ses.send(new SendEmailCommand({ Destination: { ToAddresses: ['ann@example.com'] }, Content: { Raw: { Data: Buffer.from(raw) } } }));
};

const signatureOf = (standIn: SesStandIn) => /^DKIM-Signature: [^\r\n]*(?:\r\n[ \t][^\r\n]*)*/m.exec(standIn.sent.at(-1)!.raw.toString('utf8'))?.[0].replace(/\r\n[ \t]+/g, ' ');

test('seals a BYODKIM private key in its state file, and still signs with it after a restart', async () => {
  const key = dkimKey();
  const other = dkimKey();
  await withStandIn(async (ses) => {
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: 'mg.example.com', DkimSigningAttributes: { DomainSigningSelector: 's1', DomainSigningPrivateKey: key.base64 } }));
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: 'news.example.com' }));
    await ses.send(new PutEmailIdentityDkimSigningAttributesCommand({ EmailIdentity: 'news.example.com', SigningAttributesOrigin: 'EXTERNAL', SigningAttributes: { DomainSigningSelector: 'k2', DomainSigningPrivateKey: other.base64 } }));
  });
  const text = readFileSync(stateFile, 'utf8');
  expect(text).not.toContain(key.base64.slice(0, 40));
  expect(text).not.toContain(other.base64.slice(0, 40));
  expect(text).not.toMatch(/privateKeyBase64|PRIVATE KEY/);
  expect(JSON.parse(text).identities.map((i: { privateKeySealed?: string }) => i.privateKeySealed)).toEqual([expect.stringMatching(/^v1\./), expect.stringMatching(/^v1\./)]);
  expect(statSync(stateFile).mode & 0o777).toBe(0o600);

  await withStandIn(async (ses, standIn) => {
    await sendFrom(ses, 'mg.example.com');
    expect(signatureOf(standIn)).toMatch(/\bd=mg\.example\.com;.*\bs=s1;/);
    await sendFrom(ses, 'news.example.com');
    expect(signatureOf(standIn)).toMatch(/\bd=news\.example\.com;.*\bs=k2;/);
  });
});

test.each([
  ['the identities alone, as the oldest files have them', (identities: unknown[]) => identities],
  ['the state object', (identities: unknown[]) => ({ identities, pools: ['ses-default-dedicated-pool'] })],
])('reads a state file whose keys are in the clear (%s), seals them at once, and signs with them', async (_, shape) => {
  const key = dkimKey();
  const identities = [
    { name: 'old.example.com', dkimOrigin: 'EXTERNAL', selector: 's1', privateKeyBase64: key.base64, tokens: [] },
    { name: 'easy.example.com', dkimOrigin: 'AWS_SES', tokens: ['a', 'b', 'c'] },
  ];
  writeFileSync(stateFile, JSON.stringify(shape(identities)), { mode: 0o600 });

  await withStandIn(async (ses, standIn) => {
    const text = readFileSync(stateFile, 'utf8');
    expect(text).not.toContain(key.base64.slice(0, 40));
    expect(text).not.toContain('privateKeyBase64');
    expect(standIn.identity('easy.example.com')).toMatchObject({ dkimOrigin: 'AWS_SES', tokens: ['a', 'b', 'c'] });
    await sendFrom(ses, 'old.example.com');
    expect(signatureOf(standIn)).toMatch(/\bd=old\.example\.com;.*\bs=s1;/);
  });
});

test('refuses to start on a state file sealed with another key, rather than sign with nothing', async () => {
  await withStandIn((ses) => ses.send(new CreateEmailIdentityCommand({ EmailIdentity: 'mg.example.com', DkimSigningAttributes: { DomainSigningSelector: 's1', DomainSigningPrivateKey: dkimKey().base64 } })));
  expect(() => new SesStandIn({ file: stateFile, encryptionKey: 'another-key' })).toThrow(/ses-identities\.json.*another encryption key/);
});
