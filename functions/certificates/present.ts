import { rfc3339 } from '../platform/dates';
import { statusOf } from './status';
import type { TrackingCertificate } from '../domains/domain-store';

/**
 * GET /v2/x509/{host}/status (contract §3.3): status, error text and the PEM certificate, as
 * Mailgun answers them. Beyond Mailgun's fields: the validation CNAME to publish while ACM waits
 * for it (and keep, for renewals), when the certificate expires, and when ACM last renewed it.
 */
export function statusJson(cert: TrackingCertificate, now = Date.now()) {
  const { status, error } = statusOf(cert, now);
  return {
    status,
    ...(error ? { error } : {}),
    ...(cert.certificatePem ? { certificate: cert.certificatePem } : {}),
    ...(cert.validation ? { validation_record: { record_type: 'CNAME', name: cert.validation.name, value: cert.validation.value } } : {}),
    ...(cert.notAfter ? { expires_at: rfc3339(cert.notAfter) } : {}),
    ...(cert.renewedAt ? { renewed_at: rfc3339(cert.renewedAt) } : {}),
  };
}

/** The 202 of POST and PUT: where to poll. */
export function initiatedJson(host: string) {
  return { message: 'Initiated x509 key pair generation', location: `/v2/x509/${host}/status` };
}
