import type { DomainItem, TrackingCertificate } from '../domains/domain-store';

// What a certificate's state means, with no I/O: the rules of the status route, the web_scheme
// check and tracking links all read it here.

export type CertificateStatus = 'processing' | 'active' | 'expired' | 'error';

/** A job still `processing` this long after its deadline has died (its workflow could not record an outcome). */
export const STALLED_AFTER_MS = 15 * 60_000;

const WAITING = 'Waiting for x509 key pair generation';
const EXPIRED = 'x509 certificate has expired';
export const FAILED = 'TLS x509 key pair generation failed';

/** The status the API reports, and its error text (Mailgun's wording). */
export function statusOf(cert: TrackingCertificate, now = Date.now()): { status: CertificateStatus; error?: string } {
  if (cert.status === 'active') {
    if (cert.notAfter && Date.parse(cert.notAfter) <= now) return { status: 'expired', error: EXPIRED };
    return { status: 'active' };
  }
  if (cert.status === 'error') return { status: 'error', error: cert.error ?? FAILED };
  if (now > Date.parse(cert.deadline) + STALLED_AFTER_MS) return { status: 'error', error: `${FAILED}: the job did not finish` };
  return { status: 'processing', error: WAITING };
}

/** The host a domain's tracking links use: `web_prefix.domain`. */
function trackingHostOf(domain: Pick<DomainItem, 'name' | 'webPrefix'>): string {
  return `${domain.webPrefix}.${domain.name}`;
}

/** The domain's certificate for `host` (default: its current tracking host), if it has one. */
export function certificateFor(domain: DomainItem, host = trackingHostOf(domain)): TrackingCertificate | undefined {
  const cert = domain.trackingCertificate;
  return cert && cert.host === host ? cert : undefined;
}

/** Whether the domain's tracking host has an active (issued, attached, unexpired) certificate. */
export function servesHttps(domain: DomainItem, now = Date.now()): boolean {
  const cert = certificateFor(domain);
  return cert !== undefined && statusOf(cert, now).status === 'active';
}

/** `email.mg.example.com` -> the prefix `email` and the domain `mg.example.com`; undefined if it cannot be one. */
export function splitTrackingHost(host: string): { prefix: string; domain: string } | undefined {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  const dot = name.indexOf('.');
  if (dot <= 0 || name.length > 253) return undefined;
  const domain = name.slice(dot + 1);
  if (!domain.includes('.')) return undefined;
  return { prefix: name.slice(0, dot), domain };
}

/** A time as Go prints it (`2009-11-10 23:00:00 +0000 UTC`), as Mailgun's "still valid until" says it. */
export function goTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}
