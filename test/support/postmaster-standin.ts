import { createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Gmail Postmaster Tools API v2 on loopback, for tests: the paths and JSON shapes of Google's v2
 * REST reference (domains, domains.getComplianceStatus, domains.domainStats.query), behind an
 * OAuth 2.0 token endpoint that, as Google's does for a service account, verifies the RS256
 * signature of the JWT assertion with the account's public key before it issues a bearer token,
 * and API calls that refuse any other bearer.
 */

/** A figure per metric: a number (a rate) or a list of strings (feedback loop ids). */
export type StandInValue = number | string[];

export interface StandInDomain {
  /**
   * Figures by UTC day (`2026-11-24`), then by metric: the standard metric's name, followed by
   * its filter when it has one (`AUTH_SUCCESS_RATE auth_type = "spf"`). Days and metrics left out
   * have no data, as Google answers for low-volume days.
   */
  days: Record<string, Record<string, StandInValue>>;
  /** The DomainComplianceStatus's `complianceData` (Google's field names). */
  compliance?: Record<string, unknown>;
}

export interface StandInOptions {
  /** The service account whose assertions are honoured. */
  clientEmail: string;
  publicKey: KeyObject | string;
  /** Domains the account may read. */
  domains: Record<string, StandInDomain>;
  /** Domains Google knows but the account may not read: PERMISSION_DENIED (403). Any other: NOT_FOUND (404). */
  denied?: string[];
  /** Domains whose calls fail on Google's side: UNAVAILABLE (503). */
  unavailable?: string[];
  /** The server may return fewer stats than pageSize asks for (the reference says so); tests page with it. */
  maxPageSize?: number;
}

/** What a service account key file holds, with the stand-in's token endpoint as its token_uri. */
export function fakeServiceAccount(tokenUri: string, clientEmail = 'postmaster-fetch@mailplane-test.iam.gserviceaccount.com') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = {
    type: 'service_account' as const,
    project_id: 'mailplane-test',
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000001',
    token_uri: tokenUri,
  };
  return { key, json: JSON.stringify(key), publicKey };
}

/** The audience google-auth-library signs for, whatever token endpoint it is sent to. */
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const POSTMASTER_SCOPES = ['https://www.googleapis.com/auth/postmaster', 'https://www.googleapis.com/auth/postmaster.traffic.readonly'];

interface GoogleDate {
  year: number;
  month: number;
  day: number;
}

const normalised = (key: string) => key.replace(/\s+/g, ' ').trim();
const dayOf = (d: GoogleDate) => `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
const toDate = (day: string): GoogleDate => {
  const [year, month, date] = day.split('-').map(Number);
  return { year: year!, month: month!, day: date! };
};

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly googleStatus: string,
    message: string,
  ) {
    super(message);
  }
}

export class PostmasterStandIn {
  url = '';
  /** The token endpoint (a key's token_uri). */
  tokenUrl = '';
  /** Assertions refused, with why: the tests check a wrong key gets no token. */
  readonly refusedAssertions: string[] = [];
  /** Every domainStats:query body, in order. */
  readonly queries: Array<{ domain: string; body: Record<string, unknown> }> = [];
  /** API calls refused for a missing or unknown bearer token. */
  unauthenticatedCalls = 0;
  private readonly tokens = new Set<string>();
  private readonly publicKey: KeyObject;
  private server?: Server;

  constructor(private readonly options: StandInOptions) {
    this.publicKey = typeof options.publicKey === 'string' ? createPublicKey(options.publicKey) : options.publicKey;
  }

  get issuedTokens(): number {
    return this.tokens.size;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          this.route(req, res, Buffer.concat(chunks).toString('utf8'));
        } catch (error) {
          const failure = error instanceof HttpFailure ? error : new HttpFailure(500, 'INTERNAL', (error as Error).message);
          json(res, failure.status, { error: { code: failure.status, message: failure.message, status: failure.googleStatus } });
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.tokenUrl = `${this.url}/token`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private route(req: IncomingMessage, res: ServerResponse, body: string): void {
    const path = new URL(req.url ?? '/', this.url).pathname;
    if (req.method === 'POST' && path === '/token') return this.token(res, body);
    this.authenticate(req);
    let match: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/v2/domains') return json(res, 200, { domains: Object.keys(this.options.domains).map((d) => this.domainResource(d)) });
    if (req.method === 'GET' && (match = /^\/v2\/domains\/([^/]+)$/.exec(path))) return json(res, 200, this.domainResource(this.readable(match[1]!)));
    if (req.method === 'GET' && (match = /^\/v2\/domains\/([^/]+)\/complianceStatus$/.exec(path))) return json(res, 200, this.compliance(this.readable(match[1]!)));
    if (req.method === 'POST' && (match = /^\/v2\/domains\/([^/]+)\/domainStats:query$/.exec(path))) return json(res, 200, this.query(this.readable(match[1]!), body));
    throw new HttpFailure(404, 'NOT_FOUND', `no route for ${req.method} ${path}`);
  }

  /** The JWT bearer grant (RFC 7523): the assertion must be signed by the account's key, for Google's token audience, unexpired. */
  private token(res: ServerResponse, body: string): void {
    const form = new URLSearchParams(body);
    const refuse = (why: string) => {
      this.refusedAssertions.push(why);
      json(res, 400, { error: 'invalid_grant', error_description: why });
    };
    if (form.get('grant_type') !== JWT_BEARER) return refuse(`unsupported grant_type ${form.get('grant_type')}`);
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (!header || !claims || !signature) return refuse('malformed assertion');
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
    if (head.alg !== 'RS256') return refuse(`unsupported alg ${head.alg}`);
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), this.publicKey, Buffer.from(signature, 'base64url'))) return refuse('Invalid JWT Signature.');
    const claim = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { iss?: string; aud?: string; scope?: string; exp?: number; iat?: number };
    const now = Math.floor(Date.now() / 1000);
    if (claim.iss !== this.options.clientEmail) return refuse(`unknown issuer ${claim.iss}`);
    if (claim.aud !== GOOGLE_TOKEN_AUDIENCE && claim.aud !== this.tokenUrl) return refuse(`wrong audience ${claim.aud}`);
    if (!claim.exp || claim.exp <= now || (claim.iat ?? 0) > now + 300) return refuse('assertion expired or not yet valid');
    if (!claim.scope?.split(' ').some((scope) => POSTMASTER_SCOPES.includes(scope))) return refuse(`no Postmaster scope in ${claim.scope}`);
    const token = `ya29.standin-${randomBytes(24).toString('base64url')}`;
    this.tokens.add(token);
    json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  private authenticate(req: IncomingMessage): void {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) {
      this.unauthenticatedCalls++;
      throw new HttpFailure(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    }
  }

  /** The domain if the account may read it; Google's 403 or 404 otherwise. */
  private readable(encoded: string): string {
    const domain = decodeURIComponent(encoded);
    if (this.options.unavailable?.includes(domain)) throw new HttpFailure(503, 'UNAVAILABLE', 'The service is currently unavailable.');
    if (this.options.denied?.includes(domain)) throw new HttpFailure(403, 'PERMISSION_DENIED', `The caller does not have permission to access domain ${domain}.`);
    if (!this.options.domains[domain]) throw new HttpFailure(404, 'NOT_FOUND', `Domain ${domain} not found.`);
    return domain;
  }

  private domainResource(domain: string) {
    return { name: `domains/${domain}`, permission: 'READER', verificationState: 'VERIFIED', createTime: '2026-01-05T10:00:00Z', lastVerifyTime: '2026-01-05T10:00:00Z' };
  }

  private compliance(domain: string) {
    const data = this.options.domains[domain]!.compliance;
    return { name: `domains/${domain}/complianceStatus`, ...(data ? { complianceData: { domainId: domain, ...data } } : {}) };
  }

  private query(domain: string, body: string) {
    const request = JSON.parse(body || '{}') as {
      metricDefinitions?: Array<{ name?: string; baseMetric?: { standardMetric?: string }; filter?: string }>;
      timeQuery?: { dateRanges?: { dateRanges?: Array<{ start: GoogleDate; end: GoogleDate }> }; dateList?: { dates?: GoogleDate[] } };
      aggregationGranularity?: string;
      pageSize?: number;
      pageToken?: string;
    };
    this.queries.push({ domain, body: request as Record<string, unknown> });
    const definitions = request.metricDefinitions ?? [];
    if (!definitions.length || definitions.some((d) => !d.name || !d.baseMetric?.standardMetric)) throw new HttpFailure(400, 'INVALID_ARGUMENT', 'metricDefinitions: each needs a name and a baseMetric.');
    if ((request.aggregationGranularity ?? 'DAILY') !== 'DAILY') throw new HttpFailure(400, 'INVALID_ARGUMENT', 'this stand-in answers DAILY granularity only');
    const ranges = request.timeQuery?.dateRanges?.dateRanges;
    const list = request.timeQuery?.dateList?.dates;
    if (!ranges?.length && !list?.length) throw new HttpFailure(400, 'INVALID_ARGUMENT', 'timeQuery is required.');
    const inQuery = (day: string) => (ranges ?? []).some((r) => day >= dayOf(r.start) && day <= dayOf(r.end)) || (list ?? []).some((d) => dayOf(d) === day);
    const days = this.options.domains[domain]!.days;
    const stats = Object.keys(days)
      .filter(inQuery)
      .sort()
      .flatMap((day) =>
        definitions.flatMap((definition, i) => {
          const key = normalised(`${definition.baseMetric!.standardMetric} ${definition.filter ?? ''}`);
          const value = Object.entries(days[day]!).find(([k]) => normalised(k) === key)?.[1];
          if (value === undefined) return [];
          return [{ name: `domains/${domain}/domainStats/${day.replace(/-/g, '')}-${i}`, metric: definition.name, value: Array.isArray(value) ? { stringList: { values: value } } : { doubleValue: value }, date: toDate(day) }];
        }),
      );
    const pageSize = Math.min(request.pageSize || 10, 200, this.options.maxPageSize ?? 200);
    const offset = request.pageToken ? Number(Buffer.from(request.pageToken, 'base64url').toString('utf8')) : 0;
    const next = offset + pageSize;
    return { domainStats: stats.slice(offset, next), ...(next < stats.length ? { nextPageToken: Buffer.from(String(next)).toString('base64url') } : {}) };
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
}
