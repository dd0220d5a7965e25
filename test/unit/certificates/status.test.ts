import { statusJson } from '../../../functions/certificates/present';
import { certificateFor, goTime, servesHttps, splitTrackingHost, STALLED_AFTER_MS, statusOf } from '../../../functions/certificates/status';
import type { DomainItem, TrackingCertificate } from '../../../functions/domains/domain-store';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const cert = (fields: Partial<TrackingCertificate> = {}): TrackingCertificate => ({
  host: 'email.mg.example.com',
  jobId: 'x509-1',
  status: 'processing',
  requestedAt: '2025-06-01T11:00:00Z',
  deadline: '2025-06-04T11:00:00Z',
  ...fields,
});
const domain = (fields: Partial<DomainItem> = {}) => ({ name: 'mg.example.com', webPrefix: 'email', ...fields }) as DomainItem;

describe('certificate status', () => {
  it('is processing while the job waits, with Mailgun\'s text', () => {
    expect(statusOf(cert(), NOW)).toEqual({ status: 'processing', error: 'Waiting for x509 key pair generation' });
  });

  it('is active until notAfter, then expired', () => {
    const active = cert({ status: 'active', notAfter: '2025-06-01T12:00:01Z' });
    expect(statusOf(active, NOW)).toEqual({ status: 'active' });
    expect(statusOf(active, NOW + 1000)).toEqual({ status: 'expired', error: 'x509 certificate has expired' });
  });

  it('is error with the recorded reason, or the generic one', () => {
    expect(statusOf(cert({ status: 'error', error: 'TLS x509 key pair generation failed: ACM said no' }), NOW).error).toBe('TLS x509 key pair generation failed: ACM said no');
    expect(statusOf(cert({ status: 'error' }), NOW).error).toBe('TLS x509 key pair generation failed');
  });

  it('turns a job that outlived its deadline by the grace period into an error: every job ends', () => {
    const late = cert({ deadline: new Date(NOW - 1000).toISOString() });
    expect(statusOf(late, NOW).status).toBe('processing');
    expect(statusOf(late, NOW + STALLED_AFTER_MS)).toEqual({ status: 'error', error: 'TLS x509 key pair generation failed: the job did not finish' });
  });

  it('serves https only for the current tracking host with an active, unexpired certificate', () => {
    const active = cert({ status: 'active', notAfter: '2026-06-01T00:00:00Z' });
    expect(servesHttps(domain({ trackingCertificate: active }), NOW)).toBe(true);
    expect(servesHttps(domain({ trackingCertificate: active, webPrefix: 'links' }), NOW)).toBe(false);
    expect(certificateFor(domain({ trackingCertificate: active, webPrefix: 'links' }))).toBeUndefined();
    expect(servesHttps(domain({ trackingCertificate: { ...active, notAfter: '2025-01-01T00:00:00Z' } }), NOW)).toBe(false);
    expect(servesHttps(domain({ trackingCertificate: cert() }), NOW)).toBe(false);
    expect(servesHttps(domain(), NOW)).toBe(false);
  });

  it('splits a tracking host into its prefix and domain', () => {
    expect(splitTrackingHost('Email.MG.example.com.')).toEqual({ prefix: 'email', domain: 'mg.example.com' });
    expect(splitTrackingHost('example.com')).toBeUndefined();
    expect(splitTrackingHost('com')).toBeUndefined();
    expect(splitTrackingHost('.example.com')).toBeUndefined();
  });

  it("writes times as Go prints them, as Mailgun's 'still valid until' does", () => {
    expect(goTime('2009-11-10T23:00:00.000Z')).toBe('2009-11-10 23:00:00 +0000 UTC');
  });
});

describe('status reply', () => {
  it('carries the status, error, PEM, the validation record and the expiry, and leaves out what is unknown', () => {
    expect(statusJson(cert({ validation: { name: '_a.email.mg.example.com', value: '_b.acm-validations.aws' } }), NOW)).toEqual({
      status: 'processing',
      error: 'Waiting for x509 key pair generation',
      validation_record: { record_type: 'CNAME', name: '_a.email.mg.example.com', value: '_b.acm-validations.aws' },
    });
    const active = cert({ status: 'active', certificatePem: 'PEM', notAfter: '2026-06-01T00:00:00Z', renewedAt: '2025-05-01T00:00:00Z' });
    expect(statusJson(active, NOW)).toEqual({ status: 'active', certificate: 'PEM', expires_at: '2026-06-01T00:00:00.000Z', renewed_at: '2025-05-01T00:00:00.000Z' });
  });
});
