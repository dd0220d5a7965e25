import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { awsJsonOperation } from './aws-json';
import { closeServer, listenOnLoopback, readBody, standInServer } from './http';
import type { LocalCa } from './local-ca';
import { writeStateFile } from './state-file';

/** One certificate as the stand-in keeps it (dates in epoch milliseconds). */
interface StoredCertificate {
  arn: string;
  domainName: string;
  idempotencyToken?: string;
  tags: Array<{ Key: string; Value?: string }>;
  status: 'PENDING_VALIDATION' | 'ISSUED' | 'EXPIRED' | 'VALIDATION_TIMED_OUT';
  createdAt: number;
  /** The CNAME ACM asks to find in DNS before it issues (and renews). */
  validation: { name: string; value: string };
  certificatePem?: string;
  privateKeyPem?: string;
  serial?: string;
  notBefore?: number;
  notAfter?: number;
  issuedAt?: number;
  renewedAt?: number;
  /** What uses it (API Gateway domain names): in use, it cannot be deleted. */
  inUseBy: string[];
}

export interface AcmStandInOptions {
  /** Local mode's CA: it signs what this stand-in issues. */
  ca: LocalCa;
  region: string;
  /** Where certificates (and their private keys) persist, owner-only; undefined keeps them in memory. */
  stateFile?: string;
  /** Looks a CNAME up as ACM would, in public DNS: here the region's resolvers (DNS_SERVERS or the local zone). */
  resolveCname(name: string): Promise<string[] | undefined>;
  /** How long an issued certificate is valid; default 395 days. */
  validityMs?: number;
  /** How long before expiry a certificate in use is renewed (as ACM's managed renewal does); default 60 days, 0 never. */
  renewBeforeMs?: number;
  /** How long a request waits for its validation record before it times out; default 72 hours, as ACM's. */
  validationTimeoutMs?: number;
}

const ACCOUNT = '000000000000';
const DAY_MS = 86_400_000;
/** ACM answers a repeated idempotency token with the first certificate for an hour. */
const IDEMPOTENCY_MS = 3_600_000;

class AcmError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
const sameName = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/**
 * AWS Certificate Manager for local mode, over the JSON protocol the SDK's ACM client speaks
 * (ACM_ENDPOINT points here): RequestCertificate (DNS validation), DescribeCertificate,
 * GetCertificate and DeleteCertificate. A certificate is issued, signed by the local CA, once its
 * validation CNAME resolves in DNS, checked as ACM checks it: whenever it is asked about. A
 * certificate in use is renewed in its renewal window while the record stays published; one not
 * renewed expires.
 */
export class AcmStandIn {
  private server?: Server;
  private readonly certificates = new Map<string, StoredCertificate>();
  /** One refresh per certificate at a time: two questions at once must not sign it twice. */
  private readonly refreshing = new Map<string, Promise<void>>();
  private readonly validityMs: number;
  private readonly renewBeforeMs: number;
  private readonly validationTimeoutMs: number;

  constructor(private readonly options: AcmStandInOptions) {
    this.validityMs = options.validityMs ?? 395 * DAY_MS;
    this.renewBeforeMs = options.renewBeforeMs ?? 60 * DAY_MS;
    this.validationTimeoutMs = options.validationTimeoutMs ?? 72 * 3_600_000;
    if (options.stateFile && existsSync(options.stateFile)) {
      for (const cert of JSON.parse(readFileSync(options.stateFile, 'utf8')) as StoredCertificate[]) this.certificates.set(cert.arn, cert);
    }
  }

  async listen(): Promise<string> {
    this.server = standInServer((req, res) => this.handle(req, res));
    return listenOnLoopback(this.server);
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  /** Whether a certificate exists and is issued (API Gateway refuses to attach any other). */
  isIssued(arn: string): boolean {
    return this.certificates.get(arn)?.status === 'ISSUED';
  }

  /** API Gateway's domain names mark the certificates they hold. */
  markInUse(arn: string, by: string, inUse: boolean): void {
    const cert = this.certificates.get(arn);
    if (!cert) return;
    cert.inUseBy = cert.inUseBy.filter((user) => user !== by);
    if (inUse) cert.inUseBy.push(by);
    this.persist();
  }

  /** What the HTTPS listener serves for a certificate: itself with the chain, and its key. */
  async keyPair(arn: string): Promise<{ certificatePem: string; chainPem: string; privateKeyPem: string; serial: string } | undefined> {
    const cert = this.certificates.get(arn);
    if (!cert) return undefined;
    await this.refresh(cert);
    if (!cert.certificatePem || !cert.privateKeyPem || !cert.serial) return undefined;
    return { certificatePem: cert.certificatePem, chainPem: this.options.ca.certificatePem, privateKeyPem: cert.privateKeyPem, serial: cert.serial };
  }

  private persist(): void {
    const file = this.options.stateFile;
    if (!file) return;
    writeStateFile(file, JSON.stringify([...this.certificates.values()]));
  }

  private async validationFound(cert: StoredCertificate): Promise<boolean> {
    const observed = await this.options.resolveCname(cert.validation.name).catch(() => undefined);
    return (observed ?? []).some((value) => sameName(value, cert.validation.value));
  }

  private sign(cert: StoredCertificate, now: number): void {
    const issued = this.options.ca.issue([cert.domainName], this.validityMs / DAY_MS, new Date(now));
    // ACM hands out PEM with \n line ends (the CA's library writes \r\n).
    cert.certificatePem = issued.certificatePem.replace(/\r\n/g, '\n');
    cert.privateKeyPem = issued.privateKeyPem;
    cert.serial = issued.serial;
    cert.notBefore = issued.notBefore.getTime();
    // The CA counts whole seconds; the stand-in's own clock is the one that says when it lapses.
    cert.notAfter = now + this.validityMs;
  }

  private refresh(cert: StoredCertificate): Promise<void> {
    let pending = this.refreshing.get(cert.arn);
    if (!pending) {
      pending = this.advance(cert, Date.now()).finally(() => this.refreshing.delete(cert.arn));
      this.refreshing.set(cert.arn, pending);
    }
    return pending;
  }

  /** What ACM would have done since it was last asked: validate, time out, renew, expire. */
  private async advance(cert: StoredCertificate, now: number): Promise<void> {
    if (cert.status === 'PENDING_VALIDATION') {
      if (await this.validationFound(cert)) {
        this.sign(cert, now);
        cert.status = 'ISSUED';
        cert.issuedAt = now;
        this.persist();
      } else if (now - cert.createdAt >= this.validationTimeoutMs) {
        cert.status = 'VALIDATION_TIMED_OUT';
        this.persist();
      }
      return;
    }
    if (cert.status !== 'ISSUED' || cert.notAfter === undefined) return;
    if (now >= cert.notAfter) {
      cert.status = 'EXPIRED';
      this.persist();
      return;
    }
    const renewable = this.renewBeforeMs > 0 && now >= cert.notAfter - this.renewBeforeMs && cert.inUseBy.length > 0;
    if (renewable && (await this.validationFound(cert))) {
      this.sign(cert, now);
      cert.renewedAt = now;
      this.persist();
    }
  }

  private find(input: Record<string, unknown>): StoredCertificate {
    const arn = String(input['CertificateArn'] ?? '');
    const cert = this.certificates.get(arn);
    if (!cert) throw new AcmError('ResourceNotFoundException', `Could not find certificate ${arn}.`);
    return cert;
  }

  private requestCertificate(input: Record<string, unknown>) {
    const domainName = String(input['DomainName'] ?? '').toLowerCase();
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domainName)) throw new AcmError('InvalidDomainValidationOptionsException', `Domain name ${domainName} is not valid.`);
    if ((input['ValidationMethod'] ?? 'EMAIL') !== 'DNS') throw new AcmError('InvalidParameterException', 'The local ACM stand-in validates by DNS only.');
    const token = input['IdempotencyToken'] === undefined ? undefined : String(input['IdempotencyToken']);
    const now = Date.now();
    if (token) {
      for (const cert of this.certificates.values()) {
        if (cert.idempotencyToken === token && cert.domainName === domainName && now - cert.createdAt < IDEMPOTENCY_MS) return { CertificateArn: cert.arn };
      }
    }
    const arn = `arn:aws:acm:${this.options.region}:${ACCOUNT}:certificate/${randomUUID()}`;
    const label = createHash('md5').update(`${arn}|${domainName}`).digest('hex');
    const cert: StoredCertificate = {
      arn,
      domainName,
      idempotencyToken: token,
      tags: (input['Tags'] as StoredCertificate['tags'] | undefined) ?? [],
      status: 'PENDING_VALIDATION',
      createdAt: now,
      // ACM's shapes: `_<32 hex>.<host>.` CNAME `_<32 hex>.<10 chars>.acm-validations.aws.`
      validation: { name: `_${label}.${domainName}.`, value: `_${randomBytes(16).toString('hex')}.${randomBytes(5).toString('hex')}.acm-validations.aws.` },
      inUseBy: [],
    };
    this.certificates.set(arn, cert);
    this.persist();
    return { CertificateArn: arn };
  }

  private async describeCertificate(input: Record<string, unknown>) {
    const cert = this.find(input);
    await this.refresh(cert);
    const validationStatus = cert.status === 'PENDING_VALIDATION' ? 'PENDING_VALIDATION' : cert.status === 'VALIDATION_TIMED_OUT' ? 'FAILED' : 'SUCCESS';
    return {
      Certificate: {
        CertificateArn: cert.arn,
        DomainName: cert.domainName,
        SubjectAlternativeNames: [cert.domainName],
        DomainValidationOptions: [
          {
            DomainName: cert.domainName,
            ValidationDomain: cert.domainName,
            ValidationStatus: validationStatus,
            ValidationMethod: 'DNS',
            ResourceRecord: { Name: cert.validation.name, Type: 'CNAME', Value: cert.validation.value },
          },
        ],
        Status: cert.status,
        Type: 'AMAZON_ISSUED',
        KeyAlgorithm: 'RSA-2048',
        Serial: cert.serial,
        Issuer: 'mailplane local CA',
        CreatedAt: seconds(cert.createdAt),
        IssuedAt: seconds(cert.issuedAt),
        NotBefore: seconds(cert.notBefore),
        NotAfter: seconds(cert.notAfter),
        InUseBy: cert.inUseBy,
        RenewalEligibility: cert.inUseBy.length ? 'ELIGIBLE' : 'INELIGIBLE',
        ...(cert.renewedAt ? { RenewalSummary: { RenewalStatus: 'SUCCESS', UpdatedAt: seconds(cert.renewedAt) } } : {}),
        ...(cert.status === 'VALIDATION_TIMED_OUT' ? { FailureReason: 'OTHER' } : {}),
      },
    };
  }

  private async getCertificate(input: Record<string, unknown>) {
    const cert = this.find(input);
    await this.refresh(cert);
    if (!cert.certificatePem) throw new AcmError('RequestInProgressException', `Certificate ${cert.arn} is not yet issued.`);
    return { Certificate: cert.certificatePem.replace(/\r\n/g, '\n').trim(), CertificateChain: this.options.ca.certificatePem.replace(/\r\n/g, '\n').trim() };
  }

  private deleteCertificate(input: Record<string, unknown>) {
    const cert = this.find(input);
    if (cert.inUseBy.length) throw new AcmError('ResourceInUseException', `Certificate ${cert.arn} is in use by ${cert.inUseBy.join(', ')}.`);
    this.certificates.delete(cert.arn);
    this.persist();
    return {};
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    const operation = awsJsonOperation(req);
    const body = (await readBody(req)).toString('utf8');
    try {
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(body || '{}') as Record<string, unknown>;
      } catch {
        throw new AcmError('SerializationException', 'Malformed JSON');
      }
      if (operation === 'RequestCertificate') return reply(200, this.requestCertificate(input));
      if (operation === 'DescribeCertificate') return reply(200, await this.describeCertificate(input));
      if (operation === 'GetCertificate') return reply(200, await this.getCertificate(input));
      if (operation === 'DeleteCertificate') return reply(200, this.deleteCertificate(input));
      throw new AcmError('UnknownOperationException', `${operation} is not supported by the local ACM stand-in`);
    } catch (error) {
      if (error instanceof AcmError) return reply(400, { __type: error.type, message: error.message });
      return reply(500, { __type: 'InternalFailure', message: (error as Error).message });
    }
  }
}
