import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { SmtpIdentity, SmtpSignIn } from '../credentials/credentials';
import { ApiError } from '../platform/errors';
import type { SmtpEnvelope } from './submit';

/**
 * The SMTP submission service: nodemailer's smtp-server on each configured port, AUTH PLAIN and
 * LOGIN against the domains' SMTP credentials (only once the connection is encrypted), and each
 * accepted message handed on to `submit`. A pure module: it takes its collaborators and TLS
 * material as configuration and returns started listeners. Local mode runs it inside each region
 * host (lib/local/region-host.ts); on AWS it is the Fargate service's entry (functions/smtp/main.ts).
 */

/**
 * - starttls: plain at first, STARTTLS offered and required before AUTH (submission, 587).
 * - implicit-tls: TLS from the first byte (SMTPS, 465).
 * - tls-terminated: TLS already ended by a load balancer in front (the NLB's TLS listener on 465),
 *   so the connection counts as encrypted and STARTTLS is not offered.
 */
export type ListenerMode = 'starttls' | 'implicit-tls' | 'tls-terminated';

export interface SmtpListenerConfig {
  port: number;
  host?: string;
  mode: ListenerMode;
}

export interface SmtpServiceConfig {
  listeners: readonly SmtpListenerConfig[];
  /** Certificate chain and key, PEM (every mode but tls-terminated needs them). */
  tls?: { cert: string; key: string };
  /** The name the server greets with. */
  hostname: string;
  /** The SIZE announced and enforced: the same limit as POST /v3/{domain}/messages.mime. */
  maxMessageBytes: number;
  /** Recipients of one message, as the HTTP API allows. */
  maxRecipients: number;
  /**
   * Checks a login from `remoteAddress` (the client's: for the account's IP allowlist, and the
   * failures counted per address across connections).
   */
  authenticate(login: string, password: string, remoteAddress?: string): Promise<SmtpSignIn>;
  submit(identity: SmtpIdentity, envelope: SmtpEnvelope, mime: Buffer): Promise<{ id: string }>;
  /** Failed AUTH attempts a connection may make; the next failure closes it. Default 3. */
  maxAuthFailures?: number;
  /**
   * Pause before answering a failed AUTH, so guessing is slow; times the sign-in's `slowdown` once
   * the login or address has failed repeatedly. Default 1000 ms.
   */
  authFailureDelayMs?: number;
  /** How long close() lets sessions finish before cutting them. Default 10 s. */
  closeTimeoutMs?: number;
  /** Idle time before a connection is dropped. Default 5 minutes (RFC 5321's DATA wait). */
  socketTimeoutMs?: number;
  /** Never given a password or a message body. */
  log?(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
}

export interface SmtpService {
  /** The bound ports, in the order of `listeners` (useful when a port was 0). */
  ports: number[];
  /** Stops accepting, lets sessions finish (up to closeTimeoutMs), then closes. */
  close(): Promise<void>;
}

/** An SMTP reply for a refusal: smtp-server answers with the error's responseCode and message. */
function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * How a refusal of the accept path reads in SMTP: the client's fault is permanent (5xx), a limit
 * is temporary (4xx, retried by the client), and anything unexpected is temporary too, since the
 * message was not taken.
 */
function replyFor(error: unknown): { code: number; message: string } {
  if (error instanceof ApiError) {
    if (error.status === 413) return { code: 552, message: error.message };
    if (error.status === 429) return { code: 451, message: error.message };
    if (error.status >= 400 && error.status < 500) return { code: 550, message: error.message };
  }
  return { code: 451, message: 'Temporary failure, please try again later' };
}

function sessionUser(session: SMTPServerSession): SmtpIdentity {
  return session.user as SmtpIdentity;
}

async function readMessage(stream: SMTPServerDataStream, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    // Past the limit the rest is read (the client is still sending) but not kept.
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return stream.sizeExceeded || size > limit ? undefined : Buffer.concat(chunks);
}

export async function startSmtpService(config: SmtpServiceConfig): Promise<SmtpService> {
  const maxFailures = config.maxAuthFailures ?? 3;
  const failureDelay = config.authFailureDelayMs ?? 1000;
  const log = config.log ?? (() => undefined);
  /** Failed AUTH attempts per connection (session ids are per connection). */
  const failures = new Map<string, number>();

  const options = (mode: ListenerMode): SMTPServerOptions => {
    if (mode !== 'tls-terminated' && !config.tls) throw new Error(`An SMTP listener in ${mode} mode needs a certificate and key`);
    return {
      name: config.hostname,
      banner: 'Mailplane SMTP submission',
      secure: mode === 'implicit-tls',
      secured: mode === 'tls-terminated',
      ...(config.tls ? { key: config.tls.key, cert: config.tls.cert } : {}),
      authMethods: ['PLAIN', 'LOGIN'],
      // AUTH only over TLS: smtp-server refuses it on a plain connection unless allowInsecureAuth.
      allowInsecureAuth: false,
      size: config.maxMessageBytes,
      rejectOversized: true,
      maxRecipients: config.maxRecipients,
      disableReverseLookup: true,
      socketTimeout: config.socketTimeoutMs ?? 5 * 60_000,
      closeTimeout: config.closeTimeoutMs ?? 10_000,
      logger: false,
      onAuth(auth, session, callback) {
        const login = auth.username ?? '';
        config
          .authenticate(login, auth.password ?? '', session.remoteAddress)
          .then(async (outcome) => {
            if ('identity' in outcome) {
              failures.delete(session.id);
              return callback(null, { user: outcome.identity });
            }
            const count = (failures.get(session.id) ?? 0) + 1;
            failures.set(session.id, count);
            const fields = { session: session.id, remoteAddress: session.remoteAddress, login: login.slice(0, 320), attempt: count };
            const locked = outcome.refused === 'locked';
            if (locked) log('warn', 'smtp authentication refused: too many failures', { ...fields, retryAfterSeconds: outcome.retryAfterSeconds });
            else log('warn', 'smtp authentication failed', fields);
            await new Promise((resolve) => setTimeout(resolve, failureDelay * (locked ? 1 : outcome.slowdown)));
            // 421 makes smtp-server close the connection after replying.
            if (count >= maxFailures) return callback(smtpError(421, 'Too many failed authentication attempts, closing connection'));
            // 454 is RFC 4954's temporary authentication failure: a client may come back later.
            if (locked) return callback(smtpError(454, `Too many failed authentication attempts for this login or address, try again in ${outcome.retryAfterSeconds} seconds`));
            return callback(smtpError(535, 'Authentication credentials invalid'));
          })
          .catch((error: unknown) => {
            log('error', 'smtp authentication could not be checked', { session: session.id, error: String(error) });
            callback(smtpError(454, 'Temporary authentication failure'));
          });
      },
      onData(stream, session, callback) {
        const identity = sessionUser(session);
        readMessage(stream, config.maxMessageBytes)
          .then(async (mime) => {
            if (!mime) return callback(smtpError(552, `Message exceeds the maximum size of ${config.maxMessageBytes} bytes`));
            const envelope: SmtpEnvelope = {
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            };
            const accepted = await config.submit(identity, envelope, mime);
            log('info', 'smtp message accepted', { session: session.id, login: identity.login, id: accepted.id, recipients: envelope.rcptTo.length, size: mime.length });
            callback(null, `Great success ${accepted.id}`);
          })
          .catch((error: unknown) => {
            const reply = replyFor(error);
            if (reply.code === 451) log('error', 'smtp message not accepted', { session: session.id, login: identity.login, error: String(error) });
            callback(smtpError(reply.code, reply.message));
          });
      },
      onClose(session) {
        failures.delete(session.id);
      },
    };
  };

  const servers: SMTPServer[] = [];
  const closeAll = () => Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  try {
    for (const listener of config.listeners) {
      const server = new SMTPServer(options(listener.mode));
      server.on('error', (error) => log('error', 'smtp server error', { port: listener.port, error: String(error) }));
      await new Promise<void>((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(listener.port, listener.host, () => {
          server.server.off('error', reject);
          resolve();
        });
      });
      servers.push(server);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    ports: servers.map((server) => (server.server.address() as AddressInfo).port),
    close() {
      closing ??= closeAll().then(() => undefined);
      return closing;
    },
  };
}
