import { JWT } from 'google-auth-library';
import type { ServiceAccountKey } from './credentials';
import type { DomainComplianceStatus, DomainStat, QueryDomainStatsRequest, QueryDomainStatsResponse } from './google-types';

/** Read-only access to traffic statistics and compliance status: all the fetch needs. */
const POSTMASTER_SCOPE = 'https://www.googleapis.com/auth/postmaster.traffic.readonly';

/** Where google-auth-library sends a service account's signed assertion, whatever the key's `token_uri` says. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** Google's page size ceiling for domainStats:query. */
const PAGE_SIZE = 200;

/** A refusal or failure of the Postmaster API, with Google's status; never the request (it carries the bearer token). */
export class PostmasterApiError extends Error {
  constructor(
    /** The HTTP status, or 0 when no answer came (network, token endpoint unreachable). */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PostmasterApiError';
  }
}

export interface PostmasterApiSettings {
  apiUrl: string;
  /** Overrides the key's token_uri (a loopback stand-in in tests). */
  tokenUrl?: string;
  /** A Workspace user to act for (domain-wide delegation). */
  subject?: string;
}

export interface PostmasterApi {
  /** Every DomainStat of a query, all pages read. */
  queryDomainStats(domain: string, request: Omit<QueryDomainStatsRequest, 'pageSize' | 'pageToken'>): Promise<DomainStat[]>;
  complianceStatus(domain: string): Promise<DomainComplianceStatus>;
}

/** Google's error bodies: the APIs' `{error: {code, message, status}}`, the token endpoint's `{error, error_description}`. */
interface GoogleErrorBody {
  error?: string | { code?: number; message?: string; status?: string };
  error_description?: string;
}

/** A Gaxios failure as our error: status and Google's own message, dropping the request config (headers, token). */
function apiError(error: unknown): PostmasterApiError {
  const e = error as { status?: number; response?: { status?: number; data?: unknown }; message?: string };
  const status = e.response?.status ?? e.status ?? 0;
  const body = e.response?.data as GoogleErrorBody | undefined;
  if (typeof body?.error === 'string') return new PostmasterApiError(status, `token endpoint: ${body.error}${body.error_description ? `: ${body.error_description}` : ''}`);
  const detail = body?.error?.message ?? (status ? `HTTP ${status}` : (e.message ?? 'no answer'));
  return new PostmasterApiError(status, body?.error?.status ? `${body.error.status}: ${detail}` : detail);
}

/**
 * The Postmaster Tools API v2 through google-auth-library's service account client, which signs
 * an RS256 assertion with the key, trades it for an access token and sends that as the bearer.
 * The library posts to Google's token endpoint by a constant; when the key (or the setting) names
 * another one, a request interceptor on the client's own transport sends the exchange there.
 */
export function postmasterApi(key: ServiceAccountKey, settings: PostmasterApiSettings): PostmasterApi {
  const client = new JWT({
    email: key.client_email,
    key: key.private_key,
    scopes: [POSTMASTER_SCOPE],
    subject: settings.subject,
    // Node's own fetch: gaxios would otherwise import node-fetch (ESM) on first use, which the
    // CommonJS handlers (and jest) cannot load, and one HTTP client fewer in the bundle.
    transporterOptions: { fetchImplementation: fetch },
  });
  const tokenUrl = settings.tokenUrl ?? key.token_uri;
  if (tokenUrl && tokenUrl !== GOOGLE_TOKEN_URL) {
    const target = new URL(tokenUrl);
    client.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (options.url.href === GOOGLE_TOKEN_URL) options.url = new URL(target.href);
        return options;
      },
    });
  }
  const base = settings.apiUrl.replace(/\/+$/, '');
  const resource = (domain: string) => `${base}/v2/domains/${encodeURIComponent(domain)}`;

  async function call<T>(url: string, method: 'GET' | 'POST', data?: unknown): Promise<T> {
    try {
      return (await client.request<T>({ url, method, data, responseType: 'json' })).data;
    } catch (error) {
      throw apiError(error);
    }
  }

  return {
    async queryDomainStats(domain, request) {
      const stats: DomainStat[] = [];
      let pageToken: string | undefined;
      do {
        const page: QueryDomainStatsResponse = await call(`${resource(domain)}/domainStats:query`, 'POST', { ...request, pageSize: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) });
        stats.push(...(page.domainStats ?? []));
        pageToken = page.nextPageToken || undefined;
      } while (pageToken);
      return stats;
    },
    complianceStatus: (domain) => call<DomainComplianceStatus>(`${resource(domain)}/complianceStatus`, 'GET'),
  };
}
