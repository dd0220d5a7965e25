import { findDomain, type DomainItem, type TrackingCertificate } from '../domains/domain-store';
import { lookup, sameHost } from '../platform/dns';
import { env } from '../platform/env';
import { ServiceError } from '../platform/errors';
import { randomHex } from '../platform/ids';
import { logger } from '../platform/logger';
import { certificatePem, describeCertificate } from './acm';
import { replaceCertificate } from './certificate-store';
import { certificateFor, goTime, splitTrackingHost, statusOf } from './status';
import { releaseCertificate, startWorkflow, type IssueJob } from './workflow';

// The rules of POST/PUT /v2/x509/{host} and its status, with no HTTP: what may start a job, what
// a job is given, and what the status route reads.

/**
 * How close to its expiry a read asks ACM whether it renewed the certificate (ACM renews 60 days
 * ahead, so a read in the last 30 days usually finds the renewal and moves the expiry a year on).
 */
const RENEWAL_WINDOW_MS = 30 * 86_400_000;

/** The account's domain whose tracking host `host` is, if any. */
async function findTrackingDomain(accountId: string, host: string): Promise<DomainItem | undefined> {
  const parts = splitTrackingHost(host);
  if (!parts) return undefined;
  const domain = await findDomain(accountId, parts.domain);
  return domain && domain.webPrefix === parts.prefix ? domain : undefined;
}

const normalized = (host: string) => host.trim().toLowerCase().replace(/\.$/, '');

/** The host's CNAME must reach the platform: its tracking target, or the custom domain a certificate already attached. */
async function checkCname(host: string, attachedTarget: string | undefined): Promise<void> {
  const targets = [env().TRACKING_CNAME_TARGET, ...(attachedTarget ? [attachedTarget] : [])];
  const observed = await lookup('CNAME', host);
  if (!observed?.some((value) => targets.some((target) => sameHost(value, target)))) throw new ServiceError(400, 'invalid CNAME record');
}

/**
 * POST (`generate`) and PUT (`regenerate`) /v2/x509/{host}: checks the rules of contract §3.3,
 * records the new job on the domain and starts its workflow. Answers the host.
 */
export async function startCertificateJob(accountId: string, rawHost: string, mode: 'generate' | 'regenerate', now = Date.now()): Promise<string> {
  const host = normalized(rawHost);
  const domain = await findTrackingDomain(accountId, host);
  if (!domain) throw new ServiceError(404, mode === 'generate' ? 'domain not found' : 'x509 cert not found');
  if (domain.type === 'sandbox') throw new ServiceError(402, 'upgrade your account to enable this feature');
  const existing = certificateFor(domain, host);
  const current = existing ? statusOf(existing, now).status : undefined;
  if (mode === 'generate' && current && current !== 'error') throw new ServiceError(409, `x509 key pair generation has already been initiated for ${host}`);
  if (mode === 'regenerate') {
    if (!existing) throw new ServiceError(404, 'x509 cert not found');
    if (current === 'processing') throw new ServiceError(429, `x509 key pair generation job is already in progress for ${host}`);
    if (current === 'active') throw new ServiceError(409, `x509 certificate is still valid until ${goTime(existing.notAfter!)}`);
  }
  await checkCname(host, existing?.target);

  const { CERTIFICATE_POLL_SECONDS, CERTIFICATE_DEADLINE_SECONDS } = env();
  // What the new certificate replaces, to be retired once it serves the host: the current one; or,
  // after a failed job (which deleted its own), whatever that job was to replace.
  const previousArn = current === 'error' ? (existing?.previousArn ?? existing?.certificateArn) : existing?.certificateArn;
  const jobId = `x509-${randomHex(12)}`;
  const deadline = new Date(now + CERTIFICATE_DEADLINE_SECONDS * 1000).toISOString();
  const cert: TrackingCertificate = {
    host,
    jobId,
    status: 'processing',
    requestedAt: new Date(now).toISOString(),
    deadline,
    ...(previousArn ? { previousArn } : {}),
    // The host stays served by its custom domain name until the new certificate replaces the old.
    ...(existing?.target ? { target: existing.target } : {}),
  };
  const replaced = domain.trackingCertificate;
  // Two requests at once: one records its job, the other finds it there.
  if (!(await replaceCertificate(domain, replaced?.jobId, cert))) throw new ServiceError(409, `x509 key pair generation has already been initiated for ${host}`);
  // A certificate of the domain's former tracking host is not needed any more.
  if (replaced && replaced.host !== host) await releaseCertificate(replaced);
  const job: IssueJob = { accountId, domain: domain.name, host, jobId, deadline, pollSeconds: CERTIFICATE_POLL_SECONDS, previousArn: cert.previousArn };
  try {
    await startWorkflow({ action: 'issue', job }, jobId);
  } catch (error) {
    await replaceCertificate(domain, jobId, { ...cert, status: 'error', error: 'TLS x509 key pair generation failed: the job could not be started' }).catch(() => false);
    throw error;
  }
  return host;
}

/**
 * The certificate of a tracking host, for the status route. Near and past its expiry, ACM is asked
 * whether it has renewed it (ACM renews DNS-validated certificates in use on its own, while their
 * validation record stays published); a renewal is recorded, a lapse shows as `expired`.
 */
export async function certificateStatus(accountId: string, rawHost: string, now = Date.now()): Promise<TrackingCertificate> {
  const host = normalized(rawHost);
  const domain = await findTrackingDomain(accountId, host);
  const cert = domain && certificateFor(domain, host);
  if (!cert) throw new ServiceError(404, `Please initiate x509 key pair generation at POST /v2/x509/${host}`);
  if (cert.status !== 'active' || !cert.certificateArn || !cert.notAfter) return cert;
  const expiresAt = Date.parse(cert.notAfter);
  if (now < expiresAt - RENEWAL_WINDOW_MS) return cert;
  try {
    const acm = await describeCertificate(cert.certificateArn);
    if (acm.status !== 'ISSUED' || !acm.notAfter || acm.notAfter.getTime() <= expiresAt) return cert;
    const renewed: TrackingCertificate = { ...cert, certificatePem: await certificatePem(cert.certificateArn), notAfter: acm.notAfter.toISOString(), renewedAt: new Date(now).toISOString() };
    await replaceCertificate(domain, cert.jobId, renewed);
    return renewed;
  } catch (error) {
    // What is stored still answers; ACM is asked again on the next read.
    logger.warn('could not look for a certificate renewal', { host, error: error as Error });
    return cert;
  }
}
