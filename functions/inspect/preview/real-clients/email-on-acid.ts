import type { RealClient, RealClientTier, RealResult } from './contract';

/** A call to the service that takes longer is failed (the render task tries again). */
const REQUEST_TIMEOUT_MS = 20_000;
/** A screenshot larger than this is refused rather than held in memory. */
const MAX_SCREENSHOT_BYTES = 25 * 1024 * 1024;

interface EoaClient {
  id: string;
  client: string;
  os: string;
  category: string;
  browser?: string;
  rotate?: boolean;
  image_blocking?: boolean;
  default?: boolean;
}

interface EoaResult {
  screenshots?: Record<string, string>;
  thumbnail?: string;
  full_thumbnail?: string;
  status?: string;
  status_details?: { bounce_code?: string; bounce_message?: string };
}

class EmailOnAcidError extends Error {
  override name = 'EmailOnAcidError';
}

const CATEGORIES = new Set(['Application', 'Mobile', 'Web']);
const STATUSES = new Set(['Complete', 'Processing', 'Bounced', 'Pending']);

/**
 * Email on Acid's API v5 (what Mailgun's previews resell; api.emailonacid.com/v5): Basic auth with
 * the account's API key and password; `GET /email/clients`, `POST /email/tests`, `GET
 * /email/tests/{id}/results`. Its field names are the contract's own, so results pass through.
 */
export class EmailOnAcid implements RealClientTier {
  readonly name = 'emailonacid';
  private readonly authorization: string;

  constructor(
    private readonly baseUrl: string,
    apiKey: string,
    password: string,
  ) {
    this.authorization = `Basic ${Buffer.from(`${apiKey}:${password}`).toString('base64')}`;
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl.replace(/\/$/, '')}${path}`, {
      method,
      headers: { authorization: this.authorization, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) {
      // Its error body is `{"error": {"name", "message"}}`; the credentials never appear in it.
      let detail = text.slice(0, 300);
      try {
        const parsed = JSON.parse(text) as { error?: { name?: string; message?: string } };
        if (parsed.error) detail = `${parsed.error.name ?? 'Error'}: ${parsed.error.message ?? ''}`;
      } catch {
        // Not JSON: the start of the text.
      }
      throw new EmailOnAcidError(`Email on Acid answered ${method} ${path} with HTTP ${response.status}: ${detail}`);
    }
    return JSON.parse(text) as T;
  }

  async clients(): Promise<RealClient[]> {
    const out = await this.call<{ clients?: Record<string, EoaClient> }>('GET', '/email/clients');
    return Object.values(out.clients ?? {}).map((c) => ({
      id: c.id,
      client: c.client,
      os: c.os,
      category: (CATEGORIES.has(c.category) ? c.category : 'Application') as RealClient['category'],
      browser: c.browser ?? '',
      rotate: c.rotate ?? false,
      image_blocking: c.image_blocking ?? false,
      default: c.default ?? false,
    }));
  }

  async createTest(test: { subject: string; html: string; clients: string[]; imageBlocking: boolean }): Promise<string> {
    const out = await this.call<{ id?: string }>('POST', '/email/tests', { subject: test.subject, html: test.html, clients: test.clients, image_blocking: test.imageBlocking });
    if (!out.id) throw new EmailOnAcidError('Email on Acid created a test but gave no id');
    return out.id;
  }

  async results(remoteId: string): Promise<Record<string, RealResult>> {
    const out = await this.call<Record<string, EoaResult | null>>('GET', `/email/tests/${encodeURIComponent(remoteId)}/results`);
    const results: Record<string, RealResult> = {};
    for (const [clientId, result] of Object.entries(out)) {
      if (!result) continue;
      const screenshots: Record<string, string> = { ...result.screenshots };
      if (result.thumbnail) screenshots['thumbnail'] = result.thumbnail;
      if (result.full_thumbnail) screenshots['full_thumbnail'] = result.full_thumbnail;
      results[clientId] = {
        status: (STATUSES.has(result.status ?? '') ? result.status : 'Processing') as RealResult['status'],
        screenshots,
        bounceCode: result.status_details?.bounce_code || undefined,
        bounceMessage: result.status_details?.bounce_message || undefined,
      };
    }
    return results;
  }

  async download(url: string): Promise<Buffer> {
    // Its screenshot URLs are presigned, or answer to the same Basic credentials (90 days).
    const sameService = new URL(url).origin === new URL(this.baseUrl).origin;
    const response = await fetch(url, { headers: sameService ? { authorization: this.authorization } : {}, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (!response.ok) throw new EmailOnAcidError(`A screenshot at Email on Acid answered HTTP ${response.status}`);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_SCREENSHOT_BYTES) throw new EmailOnAcidError(`A screenshot at Email on Acid is larger than ${MAX_SCREENSHOT_BYTES} bytes`);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_SCREENSHOT_BYTES) throw new EmailOnAcidError(`A screenshot at Email on Acid is larger than ${MAX_SCREENSHOT_BYTES} bytes`);
    return bytes;
  }
}
