import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import addressparser from 'nodemailer/lib/addressparser';
import { sealingKey, sealWith, unsealWith } from '../../functions/platform/secrets';
import { closeServer, listenOnLoopback, readBody, standInServer } from './http';
import { writeStateFile } from './state-file';

interface Identity {
  name: string;
  dkimOrigin: 'EXTERNAL' | 'AWS_SES';
  selector?: string;
  /** BYODKIM: the PKCS#1 DER key, base64, as SES takes it; sealed in the state file (PersistedIdentity). */
  privateKeyBase64?: string;
  /** PutEmailIdentityDkimAttributes; SES signs unless it was turned off. */
  signingEnabled?: boolean;
  tokens: string[];
  mailFromDomain?: string;
}

interface SigningAttributes {
  DomainSigningSelector?: string;
  DomainSigningPrivateKey?: string;
}

function privateKeyPem(base64: string): string {
  return `-----BEGIN RSA PRIVATE KEY-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END RSA PRIVATE KEY-----\n`;
}

/**
 * The SES v2 API as far as the platform uses it, spoken over HTTP so the handlers keep their real
 * SDK client (pointed here by SES_ENDPOINT). Identities count as verified: SES checks DNS on its
 * own, and the platform's verification does its own DNS checks anyway. Sending comes with the
 * sending pipeline.
 */
/**
 * What SES publishes to a configuration set's event destination, as an SNS notification body,
 * and how long after the send it is to arrive.
 */
export type NotificationSink = (snsEnvelope: string, delaySeconds: number) => void;

/** SES reports a moment after it accepts a message, as its event destination does. */
const NOTIFICATION_DELAY_SECONDS = 0.02;

export interface SentMessage {
  sesMessageId: string;
  /** The dedicated IP SES sent from: one of the configuration set's sending pool, or none (the shared pool). */
  sendingIp?: string;
  destinations: string[];
  raw: Buffer;
  tags: Record<string, string[]>;
  configurationSet?: string;
  /** The TLS policy of that configuration set: REQUIRE means SES delivers only over TLS. */
  tlsPolicy?: TlsPolicy;
}

export type TlsPolicy = 'OPTIONAL' | 'REQUIRE';

/** A configuration set as far as sending goes: its TLS policy and the dedicated IP pool it sends from. */
interface ConfigurationSet {
  tlsPolicy: TlsPolicy;
  sendingPool?: string;
}

/** A dedicated IP as SES reports it (GetDedicatedIps). */
interface DedicatedIp {
  ip: string;
  pool: string;
  warmupStatus: 'IN_PROGRESS' | 'DONE' | 'NOT_APPLICABLE';
  warmupPercentage: number;
}

/** Where SES puts a dedicated IP no pool was chosen for. */
const DEFAULT_DEDICATED_POOL = 'ses-default-dedicated-pool';

/**
 * An identity as the state file keeps it: its private key sealed with the platform key, as every
 * secret at rest is (functions/platform/secrets.ts). Files from before hold `privateKeyBase64` in
 * the clear; they are read, and sealed as soon as they are.
 */
type PersistedIdentity = Omit<Identity, 'privateKeyBase64'> & { privateKeySealed?: string; privateKeyBase64?: string };

/** Where the stand-in keeps its state across restarts, and the platform key its secrets are sealed with. */
export interface SesPersistence {
  file: string;
  encryptionKey: string;
}

/** What the state file keeps across restarts, as SES keeps it. */
interface PersistedState {
  identities: PersistedIdentity[];
  configurationSets?: Record<string, ConfigurationSet>;
  pools?: string[];
  dedicatedIps?: DedicatedIp[];
}

/** How many sends stay in memory: a long-running `npm start` must not grow with every message. */
const SENT_KEPT = 1000;

/** Called with each accepted message and the recipients it was delivered to. */
export type DeliveryListener = (message: SentMessage, recipients: string[]) => void;

/** A send SES refused, with SES's reason. */
export interface RefusedSend {
  destinations: string[];
  raw: Buffer;
  tags: Record<string, string[]>;
  reason: string;
}

/**
 * SES's mailbox simulator: `bounce@`, `complaint@` and `suppressionlist@simulator.amazonses.com`
 * bounce or complain instead of being delivered (complaints after delivery). As with SES, a label
 * may follow a plus sign (`bounce+list-1@simulator.amazonses.com`), so that each is an address of
 * its own: a bounced address is suppressed, and the next send to it would not reach SES.
 */
export function simulated(address: string): 'bounce' | 'complaint' | 'suppressionlist' | undefined {
  const kind = /^(bounce|complaint|suppressionlist)(?:\+[^@]*)?@simulator\.amazonses\.com$/i.exec(address)?.[1]?.toLowerCase();
  return kind as ReturnType<typeof simulated>;
}

const bounces = (address: string) => simulated(address) === 'bounce' || simulated(address) === 'suppressionlist';

/** The recipients SES delivers to: all but the simulator's bouncing addresses. */
function deliveredRecipients(message: SentMessage): string[] {
  return message.destinations.filter((d) => !bounces(d));
}

export class SesStandIn {
  private readonly identities = new Map<string, Identity>();
  private server?: Server;
  /**
   * The newest accepted sends (at most SENT_KEPT), newest last, for tests; `sentTotal` counts them
   * all. Delivered copies a user can open go to the outbox (onDelivery, lib/local/outbox.ts).
   */
  readonly sent: SentMessage[] = [];
  sentTotal = 0;
  private sink?: NotificationSink;
  private deliveryListener?: DeliveryListener;
  private refusalListener?: (send: RefusedSend) => void;
  private readonly faults: Array<'throttle' | 'drop-reply'> = [];
  private readonly configurationSets = new Map<string, ConfigurationSet>();
  private readonly pools = new Set<string>([DEFAULT_DEDICATED_POOL]);
  private readonly dedicatedIps = new Map<string, DedicatedIp>();
  /** Round-robin position per pool, as SES spreads a pool's sends over its addresses. */
  private readonly nextInPool = new Map<string, number>();

  /**
   * @param configurationSets the configuration sets the stack would create, with their TLS
   *   policies: a send naming any other (or one created since through the API) is refused, as SES refuses it.
   * @param dedicatedIps the dedicated IPs the account leases (LOCAL_DEDICATED_IPS), fully warmed,
   *   in SES's default dedicated pool until moved.
   */
  private readonly stateFile: string | undefined;
  private readonly sealingKey: Buffer | undefined;

  constructor(
    persistence: SesPersistence | undefined,
    configurationSets: Readonly<Record<string, TlsPolicy>> = {},
    dedicatedIps: readonly string[] = [],
  ) {
    this.stateFile = persistence?.file;
    this.sealingKey = persistence && sealingKey(persistence.encryptionKey);
    for (const [name, tlsPolicy] of Object.entries(configurationSets)) this.configurationSets.set(name, { tlsPolicy });
    for (const ip of dedicatedIps) this.dedicatedIps.set(ip, { ip, pool: DEFAULT_DEDICATED_POOL, warmupStatus: 'DONE', warmupPercentage: 100 });
    if (this.stateFile && existsSync(this.stateFile)) {
      const saved = JSON.parse(readFileSync(this.stateFile, 'utf8')) as PersistedState | PersistedIdentity[];
      // Older state files hold the identities alone.
      const state: PersistedState = Array.isArray(saved) ? { identities: saved } : saved;
      for (const identity of state.identities) this.identities.set(identity.name, this.unsealed(identity));
      for (const [name, set] of Object.entries(state.configurationSets ?? {})) if (!this.configurationSets.has(name)) this.configurationSets.set(name, set);
      for (const pool of state.pools ?? []) this.pools.add(pool);
      // Only addresses still leased come back; where they were put is kept.
      for (const saved of state.dedicatedIps ?? []) if (this.dedicatedIps.has(saved.ip)) this.dedicatedIps.set(saved.ip, this.pools.has(saved.pool) ? saved : { ...saved, pool: DEFAULT_DEDICATED_POOL });
      // A key found in the clear leaves the disk now, not at the next change.
      if (state.identities.some((identity) => identity.privateKeyBase64 !== undefined)) this.persist();
    }
  }

  /** An identity read from the state file, its key unsealed (or, from an older file, as it was). */
  private unsealed({ privateKeySealed, ...identity }: PersistedIdentity): Identity {
    if (privateKeySealed === undefined) return identity;
    try {
      return { ...identity, privateKeyBase64: unsealWith(this.sealingKey!, privateKeySealed) };
    } catch {
      throw new Error(`${this.stateFile} holds DKIM keys sealed with another encryption key than the data dir's: restore its encryption-key file, or remove ${this.stateFile} and the domains' DKIM keys with it`);
    }
  }

  private sealed({ privateKeyBase64, ...identity }: Identity): PersistedIdentity {
    return privateKeyBase64 === undefined ? identity : { ...identity, privateKeySealed: sealWith(this.sealingKey!, privateKeyBase64) };
  }

  async listen(): Promise<string> {
    this.server = standInServer((req, res) => this.handle(req, res));
    return listenOnLoopback(this.server);
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  identity(name: string): Identity | undefined {
    return this.identities.get(name);
  }

  /**
   * Fault injection for the next sends: `throttle` answers 429 without sending; `drop-reply`
   * sends (and notifies) but never answers, as when a connection dies after SES accepted.
   */
  failNextSend(fault: 'throttle' | 'drop-reply'): void {
    this.faults.push(fault);
  }

  /** Where delivered messages go (the outbox), after SES has answered the sender. */
  onDelivery(listener: DeliveryListener): void {
    this.deliveryListener = listener;
  }

  /** Where sends SES refused are reported (the outbox lists them). */
  onRefusal(listener: (send: RefusedSend) => void): void {
    this.refusalListener = listener;
  }

  /** Where notifications go (the notifications queue, as SNS would deliver them). */
  onNotification(sink: NotificationSink): void {
    this.sink = sink;
  }

  /** Registers an identity as the operator would (the sandbox parent domain). */
  verifyDomain(name: string): void {
    if (!this.identities.has(name)) {
      this.identities.set(name, { name, dkimOrigin: 'AWS_SES', tokens: newTokens() });
      this.persist();
    }
  }

  /** The identity SES sends an address's mail under: its domain's, or the nearest parent's. */
  private identityFor(address: string): Identity | undefined {
    let domain = address.split('@')[1]?.toLowerCase() ?? '';
    while (domain.includes('.')) {
      const identity = this.identities.get(domain);
      if (identity) return identity;
      domain = domain.slice(domain.indexOf('.') + 1);
    }
    return undefined;
  }

  /**
   * SES signs with the identity's BYODKIM key (d= the identity, s= its selector). Easy DKIM keys
   * live at SES behind CNAMEs no local DNS can follow, so those identities go unsigned here.
   */
  private async sign(raw: Buffer, identity: Identity): Promise<Buffer> {
    if (identity.dkimOrigin !== 'EXTERNAL' || identity.signingEnabled === false || !identity.selector || !identity.privateKeyBase64) return raw;
    const signature = { signingDomain: identity.name, selector: identity.selector, privateKey: privateKeyPem(identity.privateKeyBase64), algorithm: 'rsa-sha256', canonicalization: 'relaxed/relaxed' };
    // mailauth 4 reads `signatureData`; its typings describe only the single-signature fields.
    const signed = await dkimSign(raw, { ...signature, signatureData: [signature] });
    if (signed.errors?.length) throw new Error(`DKIM signing failed: ${String(signed.errors[0])}`);
    return Buffer.concat([Buffer.from(signed.signatures), raw]);
  }

  private async send(body: Record<string, unknown>): Promise<{ status: number; payload: unknown; errorType?: string }> {
    const raw = Buffer.from(String((body['Content'] as { Raw?: { Data?: string } })?.Raw?.Data ?? ''), 'base64');
    const destinations = ((body['Destination'] as { ToAddresses?: string[] })?.ToAddresses ?? []).map((a) => a.toLowerCase());
    // Header fields may be folded over several lines; unfold before reading From.
    const head = (raw.toString('utf8').split(/\r?\n\r?\n/)[0] ?? '').replace(/\r?\n[ \t]+/g, ' ');
    const fromLine = /^From:(.*)$/im.exec(head)?.[1] ?? '';
    // Parsed as a mail parser reads it: an address in a quoted display name names no identity.
    const from = ((addressparser(fromLine, { flatten: true }) as Array<{ address?: string }>)[0]?.address ?? '').toLowerCase();
    const configurationSet = body['ConfigurationSetName'] as string | undefined;
    const tags: Record<string, string[]> = {};
    for (const tag of (body['EmailTags'] as Array<{ Name: string; Value: string }>) ?? []) tags[tag.Name] = [tag.Value];
    // SES adds its own tags to every event record, the configuration set's name among them.
    if (configurationSet !== undefined) tags['ses:configuration-set'] = [configurationSet];
    const refuse = (status: number, message: string, errorType: string) => {
      this.refusalListener?.({ destinations, raw, tags, reason: message });
      return { status, payload: { message }, errorType };
    };
    if (destinations.length > 50) return refuse(400, 'Recipient count exceeds 50.', 'BadRequestException');
    const identity = this.identityFor(from);
    if (!identity) return refuse(400, `Email address is not verified. The following identities failed the check: ${from}`, 'MessageRejected');
    const set = configurationSet === undefined ? undefined : this.configurationSets.get(configurationSet);
    if (configurationSet !== undefined && !set) return refuse(404, `Configuration set <${configurationSet}> does not exist.`, 'NotFoundException');
    const tlsPolicy = set?.tlsPolicy;
    const sendingIp = set?.sendingPool ? this.addressOf(set.sendingPool) : undefined;
    const message: SentMessage = { sesMessageId: `${randomBytes(16).toString('hex')}-000000`, destinations, raw: await this.sign(raw, identity), tags, configurationSet, tlsPolicy, sendingIp };
    // Handed over before SES answers: once SES has a message its outcome is reported, even if
    // the process that sent it dies the next moment. If that hand-over fails, SES has not sent it.
    try {
      this.notify(message, from);
    } catch (error) {
      return { status: 500, payload: { message: `Internal failure: ${(error as Error).message}` }, errorType: 'InternalFailure' };
    }
    this.sent.push(message);
    if (this.sent.length > SENT_KEPT) this.sent.splice(0, this.sent.length - SENT_KEPT);
    this.sentTotal += 1;
    this.deliveryListener?.(message, deliveredRecipients(message));
    return { status: 200, payload: { MessageId: message.sesMessageId } };
  }

  /** The next address of a dedicated pool; none when the pool is empty (SES then sends from its shared addresses). */
  private addressOf(pool: string): string | undefined {
    const members = [...this.dedicatedIps.values()].filter((d) => d.pool === pool).map((d) => d.ip).sort();
    if (!members.length) return undefined;
    const at = this.nextInPool.get(pool) ?? 0;
    this.nextInPool.set(pool, at + 1);
    return members[at % members.length];
  }

  private notify(message: SentMessage, source: string): void {
    if (!this.sink) return;
    const now = new Date().toISOString();
    const mail = { timestamp: now, messageId: message.sesMessageId, source, destination: message.destinations, tags: message.tags };
    const publish = (record: Record<string, unknown>) =>
      this.sink!(
        JSON.stringify({ Type: 'Notification', MessageId: randomBytes(16).toString('hex'), TopicArn: 'arn:aws:sns:local:000000000000:ses-events', Message: JSON.stringify({ ...record, mail }), Timestamp: now }),
        NOTIFICATION_DELAY_SECONDS,
      );
    const delivered = deliveredRecipients(message);
    if (delivered.length) {
      publish({ eventType: 'Delivery', delivery: { timestamp: now, recipients: delivered, smtpResponse: '250 2.0.0 OK', reportingMTA: message.sendingIp ? `${message.sendingIp.replace(/\./g, '-')}.smtp-out.local.amazonses.com` : 'a8-1.smtp-out.amazonses.com', processingTimeMillis: 20 } });
    }
    for (const address of message.destinations.filter(bounces)) {
      const listed = simulated(address) === 'suppressionlist';
      publish({
        eventType: 'Bounce',
        bounce: {
          timestamp: now,
          bounceType: 'Permanent',
          bounceSubType: listed ? 'OnAccountSuppressionList' : 'General',
          bouncedRecipients: [{ emailAddress: address, action: 'failed', status: '5.1.1', diagnosticCode: listed ? 'Amazon SES did not send the message to this address because it is on the suppression list for your account.' : 'smtp; 550 5.1.1 user unknown' }],
        },
      });
    }
    for (const address of message.destinations.filter((d) => simulated(d) === 'complaint')) {
      publish({ eventType: 'Complaint', complaint: { timestamp: now, complainedRecipients: [{ emailAddress: address }], complaintFeedbackType: 'abuse' } });
    }
  }

  /** SES's dedicated IP, pool and configuration set operations, as far as the platform uses them. */
  private dedicatedIpOperation(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): Answer {
    const parts = path.split('/').slice(3).map(decodeURIComponent);
    const ipJson = (d: DedicatedIp) => ({ Ip: d.ip, WarmupStatus: d.warmupStatus, WarmupPercentage: d.warmupPercentage, PoolName: d.pool });
    const changed = (answer: Answer = { status: 200, payload: {} }) => (this.persist(), answer);
    if (parts[0] === 'dedicated-ips') {
      if (method === 'GET' && parts.length === 1) {
        const pool = query.get('PoolName');
        if (pool && !this.pools.has(pool)) return notFound(`Pool ${pool} does not exist.`);
        const all = [...this.dedicatedIps.values()].filter((d) => !pool || d.pool === pool).sort((a, b) => a.ip.localeCompare(b.ip));
        const size = Number(query.get('PageSize') ?? 100);
        const from = Number(query.get('NextToken') ?? 0);
        const page = all.slice(from, from + size);
        return { status: 200, payload: { DedicatedIps: page.map(ipJson), ...(from + size < all.length ? { NextToken: String(from + size) } : {}) } };
      }
      const ip = this.dedicatedIps.get(parts[1] ?? '');
      if (!ip) return notFound(`Dedicated IP ${parts[1] ?? ''} does not exist.`);
      if (method === 'GET' && parts.length === 2) return { status: 200, payload: { DedicatedIp: ipJson(ip) } };
      if (method === 'PUT' && parts[2] === 'pool') {
        const destination = String(body['DestinationPoolName'] ?? '');
        if (!this.pools.has(destination)) return notFound(`Pool ${destination} does not exist.`);
        ip.pool = destination;
        return changed();
      }
      if (method === 'PUT' && parts[2] === 'warmup') {
        const percentage = Number(body['WarmupPercentage']);
        if (!Number.isInteger(percentage) || percentage < 0 || percentage > 100) return badRequest('WarmupPercentage must be between 0 and 100.');
        ip.warmupPercentage = percentage;
        ip.warmupStatus = percentage >= 100 ? 'DONE' : 'IN_PROGRESS';
        return changed();
      }
    }
    if (parts[0] === 'dedicated-ip-pools') {
      if (method === 'GET' && parts.length === 1) return { status: 200, payload: { DedicatedIpPools: [...this.pools].filter((p) => p !== DEFAULT_DEDICATED_POOL) } };
      if (method === 'POST' && parts.length === 1) {
        const name = String(body['PoolName'] ?? '');
        if (!/^[\w-]{1,64}$/.test(name)) return badRequest(`Invalid pool name ${name}.`);
        if (this.pools.has(name)) return alreadyExists(`Pool ${name} already exists.`);
        this.pools.add(name);
        return changed();
      }
      const name = parts[1] ?? '';
      if (!this.pools.has(name) || name === DEFAULT_DEDICATED_POOL) return notFound(`Pool ${name} does not exist.`);
      if (method === 'DELETE' && parts.length === 2) {
        this.pools.delete(name);
        for (const d of this.dedicatedIps.values()) if (d.pool === name) d.pool = DEFAULT_DEDICATED_POOL;
        return changed();
      }
    }
    if (parts[0] === 'configuration-sets') {
      if (method === 'POST' && parts.length === 1) {
        const name = String(body['ConfigurationSetName'] ?? '');
        if (!/^[\w-]{1,64}$/.test(name)) return badRequest(`Invalid configuration set name ${name}.`);
        if (this.configurationSets.has(name)) return alreadyExists(`Configuration set <${name}> already exists.`);
        const delivery = (body['DeliveryOptions'] ?? {}) as { TlsPolicy?: TlsPolicy; SendingPoolName?: string };
        if (delivery.SendingPoolName && !this.pools.has(delivery.SendingPoolName)) return notFound(`Pool ${delivery.SendingPoolName} does not exist.`);
        this.configurationSets.set(name, { tlsPolicy: delivery.TlsPolicy ?? 'OPTIONAL', sendingPool: delivery.SendingPoolName });
        return changed();
      }
      const name = parts[1] ?? '';
      if (!this.configurationSets.has(name)) return notFound(`Configuration set <${name}> does not exist.`);
      // Every set's events reach the one notifications sink, as the stack's topic does.
      if (method === 'POST' && parts[2] === 'event-destinations') return { status: 200, payload: {} };
      if (method === 'DELETE' && parts.length === 2) {
        this.configurationSets.delete(name);
        return changed();
      }
    }
    return notFound(`Unsupported SES operation ${method} ${path}`);
  }

  private persist(): void {
    if (!this.stateFile) return;
    const state: PersistedState = {
      identities: [...this.identities.values()].map((identity) => this.sealed(identity)),
      configurationSets: Object.fromEntries(this.configurationSets),
      pools: [...this.pools],
      dedicatedIps: [...this.dedicatedIps.values()],
    };
    writeStateFile(this.stateFile, JSON.stringify(state));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = (await readBody(req)).toString('utf8');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const reply = (status: number, payload: unknown, errorType?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
      res.end(JSON.stringify(payload));
    };
    if (req.method === 'POST' && path === '/v2/email/outbound-emails') {
      const fault = this.faults.shift();
      if (fault === 'throttle') return reply(429, { message: 'Maximum sending rate exceeded.' }, 'TooManyRequestsException');
      const result = await this.send(body);
      if (fault === 'drop-reply') {
        req.socket.destroy();
        return;
      }
      return reply(result.status, result.payload, result.errorType);
    }
    if (path.startsWith('/v2/email/dedicated-ip') || path.startsWith('/v2/email/configuration-sets')) {
      const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
      const answer = this.dedicatedIpOperation(req.method ?? 'GET', path, query, body);
      return reply(answer.status, answer.payload, answer.errorType);
    }
    const match = /^\/v2\/email\/identities(?:\/([^/]+))?(\/dkim\/signing|\/dkim|\/mail-from)?$/.exec(path);
    if (!match) return reply(404, { message: `Unsupported SES operation ${req.method} ${path}` }, 'NotFoundException');
    const name = match[1] ? decodeURIComponent(match[1]) : undefined;
    const sub = match[2];

    if (req.method === 'POST' && !name) {
      const identityName = String(body['EmailIdentity'] ?? '');
      if (this.identities.has(identityName)) return reply(400, { message: `Email identity ${identityName} already exists.` }, 'AlreadyExistsException');
      const signing = body['DkimSigningAttributes'] as SigningAttributes | undefined;
      const identity: Identity = {
        name: identityName,
        dkimOrigin: signing ? 'EXTERNAL' : 'AWS_SES',
        selector: signing?.DomainSigningSelector,
        privateKeyBase64: signing?.DomainSigningPrivateKey,
        tokens: signing ? [] : newTokens(),
      };
      this.identities.set(identityName, identity);
      this.persist();
      return reply(200, { IdentityType: 'DOMAIN', VerifiedForSendingStatus: true, DkimAttributes: dkimAttributes(identity) });
    }
    const identity = name ? this.identities.get(name) : undefined;
    if (!identity) return reply(404, { message: `Email identity ${name ?? ''} does not exist.` }, 'NotFoundException');

    if (req.method === 'GET' && !sub) {
      return reply(200, {
        IdentityType: 'DOMAIN',
        VerifiedForSendingStatus: true,
        DkimAttributes: dkimAttributes(identity),
        MailFromAttributes: identity.mailFromDomain
          ? { MailFromDomain: identity.mailFromDomain, MailFromDomainStatus: 'SUCCESS', BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' }
          : undefined,
      });
    }
    if (req.method === 'DELETE' && !sub) {
      this.identities.delete(identity.name);
      this.persist();
      return reply(200, {});
    }
    if (req.method === 'PUT' && sub === '/dkim/signing') {
      const external = body['SigningAttributesOrigin'] === 'EXTERNAL';
      identity.dkimOrigin = external ? 'EXTERNAL' : 'AWS_SES';
      const attributes = external ? (body['SigningAttributes'] as SigningAttributes | undefined) : undefined;
      identity.selector = attributes?.DomainSigningSelector;
      identity.privateKeyBase64 = attributes?.DomainSigningPrivateKey;
      identity.tokens = external ? [] : newTokens();
      this.persist();
      return reply(200, { DkimStatus: 'SUCCESS', DkimTokens: identity.tokens });
    }
    if (req.method === 'PUT' && sub === '/dkim') {
      identity.signingEnabled = body['SigningEnabled'] === true;
      this.persist();
      return reply(200, {});
    }
    if (req.method === 'PUT' && sub === '/mail-from') {
      identity.mailFromDomain = body['MailFromDomain'] as string | undefined;
      this.persist();
      return reply(200, {});
    }
    return reply(404, { message: `Unsupported SES operation ${req.method} ${path}` }, 'NotFoundException');
  }
}

type Answer = { status: number; payload: unknown; errorType?: string };
const notFound = (message: string): Answer => ({ status: 404, payload: { message }, errorType: 'NotFoundException' });
const alreadyExists = (message: string): Answer => ({ status: 400, payload: { message }, errorType: 'AlreadyExistsException' });
const badRequest = (message: string): Answer => ({ status: 400, payload: { message }, errorType: 'BadRequestException' });

function newTokens(): string[] {
  return [0, 1, 2].map(() => randomBytes(16).toString('hex'));
}

function dkimAttributes(identity: Identity) {
  return { SigningEnabled: identity.signingEnabled !== false, Status: 'SUCCESS', Tokens: identity.tokens, SigningAttributesOrigin: identity.dkimOrigin };
}
