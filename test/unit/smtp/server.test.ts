import nodemailer from 'nodemailer';
import type { SmtpIdentity } from '../../../functions/credentials/credentials';
import { BadRequest } from '../../../functions/platform/errors';
import { startSmtpService, type SmtpService, type SmtpServiceConfig } from '../../../functions/smtp/server';
import type { SmtpEnvelope } from '../../../functions/smtp/submit';
import { localCa } from '../../../lib/local/local-ca';
import { plainAuth, smtpSession } from '../../support/smtp-session';

// The SMTP service alone, with stand-in collaborators: how it answers, not what it accepts into.
const ca = localCa(null);
const certificate = ca.issue(['127.0.0.1'], 1);
const IDENTITY: SmtpIdentity = { accountId: 'acct', domain: 'example.com', login: 'app@example.com' };

let service: SmtpService | undefined;
afterEach(() => service?.close());

const submitted: Array<{ identity: SmtpIdentity; envelope: SmtpEnvelope; mime: Buffer }> = [];

async function start(overrides: Partial<SmtpServiceConfig> = {}): Promise<number> {
  submitted.length = 0;
  service = await startSmtpService({
    listeners: [{ port: 0, host: '127.0.0.1', mode: 'implicit-tls' }],
    tls: { cert: certificate.certificatePem, key: certificate.privateKeyPem },
    hostname: 'localhost',
    maxMessageBytes: 4096,
    maxRecipients: 5,
    authFailureDelayMs: 1,
    authenticate: async (login, password) => (login === IDENTITY.login && password === 'right' ? { identity: IDENTITY } : { refused: 'invalid', slowdown: 1 }),
    submit: async (identity, envelope, mime) => {
      submitted.push({ identity, envelope, mime });
      return { id: '<id@example.com>' };
    },
    ...overrides,
  });
  return service.ports[0]!;
}

const session = (port: number) => smtpSession({ port, ca: ca.certificatePem });

it('answers a wrong password with 535, and closes the connection at the third failure', async () => {
  const calls: string[] = [];
  const port = await start({ authenticate: async (login) => (calls.push(login), { refused: 'invalid', slowdown: 1 }) });
  const client = await session(port);
  expect(client.greeting).toMatch(/^220 /);
  expect(await client.send('EHLO test')).toMatch(/^250 /);
  expect(await client.send(`AUTH PLAIN ${plainAuth('app@example.com', 'one')}`)).toMatch(/^535 /);
  expect(await client.send(`AUTH PLAIN ${plainAuth('app@example.com', 'two')}`)).toMatch(/^535 /);
  expect(await client.send(`AUTH PLAIN ${plainAuth('app@example.com', 'three')}`)).toMatch(/^421 .*Too many failed authentication attempts/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(client.isClosed()).toBe(true);
  expect(calls).toHaveLength(3);
});

it('answers a sign-in refused for failures elsewhere with 454 and when to come back, without a session', async () => {
  const port = await start({ authenticate: async () => ({ refused: 'locked', retryAfterSeconds: 42 }) });
  const client = await session(port);
  await client.send('EHLO test');
  expect(await client.send(`AUTH PLAIN ${plainAuth('app@example.com', 'right')}`)).toBe('454 Too many failed authentication attempts for this login or address, try again in 42 seconds');
  expect(await client.send('MAIL FROM:<app@example.com>')).toMatch(/^530 /);
  client.end();
});

it('asks for AUTH before MAIL, and accepts LOGIN as well as PLAIN', async () => {
  const port = await start();
  const client = await session(port);
  await client.send('EHLO test');
  expect(await client.send('MAIL FROM:<app@example.com>')).toMatch(/^530 /);
  expect(await client.send('AUTH LOGIN')).toMatch(/^334 /);
  expect(await client.send(Buffer.from('app@example.com').toString('base64'))).toMatch(/^334 /);
  expect(await client.send(Buffer.from('right').toString('base64'))).toMatch(/^235 /);
  client.end();
});

it('hands an authenticated message to submit with its envelope, and replies with the id', async () => {
  const port = await start();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: true, auth: { user: 'app@example.com', pass: 'right' }, tls: { ca: ca.certificatePem } });
  const info = await transport.sendMail({ from: 'app@example.com', to: 'a@example.net', cc: 'b@example.net', bcc: 'c@example.net', subject: 'Hi', text: 'Hello' });
  expect(info.response).toBe('250 Great success <id@example.com>');
  expect(submitted).toHaveLength(1);
  expect(submitted[0]!.identity).toEqual(IDENTITY);
  expect(submitted[0]!.envelope).toEqual({ mailFrom: 'app@example.com', rcptTo: ['a@example.net', 'b@example.net', 'c@example.net'] });
  expect(submitted[0]!.mime.toString()).toContain('Subject: Hi');
});

it('refuses an oversized message with 552 without submitting it, and maps refusals to SMTP replies', async () => {
  let failure: Error = new BadRequest("'to' parameter is not a valid address. please check documentation");
  const port = await start({
    submit: async () => {
      throw failure;
    },
  });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: true, auth: { user: 'app@example.com', pass: 'right' }, tls: { ca: ca.certificatePem } });
  const send = (text: string) => transport.sendMail({ from: 'app@example.com', to: 'a@example.net', subject: 'Hi', text }).catch((e: { responseCode: number; response: string }) => e);
  expect(await send('x'.repeat(10_000))).toMatchObject({ responseCode: 552 });
  expect(await send('small')).toMatchObject({ responseCode: 550, response: expect.stringContaining("'to' parameter is not a valid address") });
  failure = new Error('the table is down');
  expect(await send('small')).toMatchObject({ responseCode: 451, response: expect.stringContaining('Temporary failure') });
  expect(submitted).toHaveLength(0);
});

it("refuses recipients past the HTTP API's limit with 452, as SMTP does: the message goes to the others", async () => {
  const port = await start();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: true, auth: { user: 'app@example.com', pass: 'right' }, tls: { ca: ca.certificatePem } });
  const to = Array.from({ length: 6 }, (_, i) => `r${i}@example.net`);
  const info = await transport.sendMail({ from: 'app@example.com', to, subject: 'Hi', text: 'x' });
  expect(info.rejected).toEqual(['r5@example.net']);
  expect(String(info.rejectedErrors![0])).toContain('452');
  expect(submitted[0]!.envelope.rcptTo).toEqual(to.slice(0, 5));
});
