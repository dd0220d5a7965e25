import { findDomain, type DomainItem, type TrackingCertificate } from '../domains/domain-store';
import { sameHost } from '../platform/dns';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { certificatePem, deleteCertificate, describeCertificate, requestCertificate } from './acm';
import type { IssueJob, ReleaseJob } from './workflow';
import { replaceCertificate } from './certificate-store';
import { serveOverHttps, stopServing } from './custom-domain';
import { FAILED } from './status';

/**
 * The steps of the tracking-certificate workflow (lib/workflows/tracking-certificate.asl.json),
 * one Lambda on AWS (the state machine's Tasks invoke it with the step and the whole state) and
 * the same function in local mode's workflow runner. Each step is safe to repeat: Step Functions
 * retries a step that failed, and a resumed local execution starts again from the top.
 *
 * A step writes to the domain only while the domain's certificate record still names its job; a
 * job that finds another in its place (a new POST, the domain deleted) is `Superseded` and takes
 * down only what it made itself.
 */

/** The state the workflow passes each Task (its execution input, and what earlier steps added). */
export interface WorkflowState {
  action: 'issue' | 'release';
  job?: IssueJob;
  release?: ReleaseJob;
  issued?: { certificateArn: string };
  /** What a Catch caught: Step Functions' Error and Cause. */
  error?: { Error?: string; Cause?: string };
}

export interface TaskEvent {
  step: 'request' | 'poll' | 'attach' | 'retire' | 'fail' | 'release';
  state: WorkflowState;
}

/** An error the workflow tells apart by its name (Retry and Catch match `Error`, a thrown error's name). */
class TaskError extends Error {
  constructor(name: 'Superseded' | 'CertificateNotIssued' | 'CertificateInUse', message: string) {
    super(message);
    this.name = name;
  }
}

function jobOf(state: WorkflowState): IssueJob {
  if (!state.job) throw new Error('the workflow state has no job');
  return state.job;
}

function arnOf(state: WorkflowState): string {
  const arn = state.issued?.certificateArn;
  if (!arn) throw new Error('the workflow state has no certificate ARN');
  return arn;
}

/** The domain and its certificate record, while the record is still this job's. */
async function ownRecord(job: IssueJob): Promise<{ domain: DomainItem; cert: TrackingCertificate }> {
  const domain = await findDomain(job.accountId, job.domain);
  const cert = domain?.trackingCertificate;
  if (!domain || !cert || cert.jobId !== job.jobId) throw new TaskError('Superseded', `the certificate job ${job.jobId} for ${job.host} was superseded`);
  return { domain, cert };
}

async function record(job: IssueJob, domain: DomainItem, cert: TrackingCertificate, also: Partial<DomainItem> = {}): Promise<void> {
  if (!(await replaceCertificate(domain, job.jobId, cert, also))) throw new TaskError('Superseded', `the certificate job ${job.jobId} for ${job.host} was superseded`);
}

/** Deletes a certificate this job made; `CertificateInUse` (retried by the workflow) while API Gateway still holds it. */
async function discard(host: string, arn: string): Promise<void> {
  await stopServing(host, arn);
  if ((await deleteCertificate(arn)) === 'in-use') throw new TaskError('CertificateInUse', `${arn} is still in use; API Gateway releases it a while after its domain name is deleted`);
}

/** The text of a caught error: a Lambda's Cause is its JSON error report, a local one the message. */
function causeText(error: WorkflowState['error']): string {
  const cause = error?.Cause ?? '';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // Not JSON: the message itself.
  }
  return cause || error?.Error || 'unknown error';
}

const steps: Record<TaskEvent['step'], (state: WorkflowState) => Promise<Record<string, unknown>>> = {
  /** Asks ACM for a DNS-validated certificate for the host (the same job asking twice gets the same one). */
  async request(state) {
    const job = jobOf(state);
    const { domain, cert } = await ownRecord(job);
    const certificateArn = await requestCertificate(job.host, job.jobId);
    if (cert.certificateArn !== certificateArn && !(await replaceCertificate(domain, job.jobId, { ...cert, certificateArn }))) {
      await deleteCertificate(certificateArn);
      throw new TaskError('Superseded', `the certificate job ${job.jobId} for ${job.host} was superseded`);
    }
    return { certificateArn };
  },

  /** Records the validation CNAME once ACM names it, and says whether ACM has issued; past the deadline, gives up. */
  async poll(state) {
    const job = jobOf(state);
    const arn = arnOf(state);
    const { domain, cert } = await ownRecord(job);
    const acm = await describeCertificate(arn);
    if (acm.validation && (cert.validation?.name !== acm.validation.name || cert.validation.value !== acm.validation.value)) {
      await record(job, domain, { ...cert, validation: acm.validation });
    }
    if (acm.status === 'ISSUED') return { issued: true };
    if (acm.status !== 'PENDING_VALIDATION') throw new TaskError('CertificateNotIssued', `ACM did not issue the certificate (${acm.status}${acm.failureReason ? `: ${acm.failureReason}` : ''})`);
    if (Date.now() >= Date.parse(job.deadline)) {
      const what = acm.validation ? `the CNAME record ${acm.validation.name} -> ${acm.validation.value} was not found in DNS` : 'ACM named no validation record';
      throw new TaskError('CertificateNotIssued', `ACM did not issue the certificate by ${job.deadline}: ${what}`);
    }
    return { issued: false };
  },

  /** Serves the host over HTTPS with the certificate (custom domain name + API mapping) and records it active. */
  async attach(state) {
    const job = jobOf(state);
    const arn = arnOf(state);
    const { domain, cert } = await ownRecord(job);
    const apiId = env().TRACKING_API_ID;
    if (!apiId) throw new Error('TRACKING_API_ID is not configured');
    const { target } = await serveOverHttps(job.host, arn, apiId);
    const [pem, acm] = await Promise.all([certificatePem(arn), describeCertificate(arn)]);
    // A host served by its own custom domain name must point there: the tracking CNAME seen
    // so far (at the platform's tracking target) no longer counts until it is seen there.
    const tracking = domain.dnsChecks?.['tracking'];
    const repoint = tracking?.valid === 'valid' && !tracking.cached.some((value) => sameHost(value, target));
    await record(
      job,
      domain,
      { ...cert, status: 'active', error: undefined, certificateArn: arn, certificatePem: pem, notAfter: acm.notAfter?.toISOString(), target, issuedAt: new Date().toISOString() },
      repoint ? { dnsChecks: { ...domain.dnsChecks, tracking: { ...tracking, valid: 'invalid' } } } : {},
    );
    return {};
  },

  /** A regeneration deletes the certificate it replaced, once API Gateway lets go of it. */
  async retire(state) {
    const job = jobOf(state);
    if (!job.previousArn || job.previousArn === state.issued?.certificateArn) return {};
    if ((await deleteCertificate(job.previousArn)) === 'in-use') throw new TaskError('CertificateInUse', `${job.previousArn} is still in use`);
    return {};
  },

  /** Records why the job ended without a certificate, and deletes the certificate it had requested. */
  async fail(state) {
    const job = jobOf(state);
    const superseded = state.error?.Error === 'Superseded';
    if (!superseded) {
      try {
        const { domain, cert } = await ownRecord(job);
        const reason = causeText(state.error);
        await record(job, domain, { ...cert, status: 'error', error: reason.startsWith(FAILED) ? reason : `${FAILED}: ${reason}` });
      } catch (error) {
        // Superseded meanwhile: the newer job's record stays as it is.
        if ((error as Error).name !== 'Superseded') throw error;
      }
    }
    logger.warn('tracking certificate not issued', { host: job.host, jobId: job.jobId, error: state.error?.Error, superseded });
    const arn = state.issued?.certificateArn;
    if (arn) await discard(job.host, arn);
    return {};
  },

  /** Takes a host's certificate down: its custom domain name (if still this certificate's) and the certificate. */
  async release(state) {
    if (!state.release) throw new Error('the workflow state has nothing to release');
    await discard(state.release.host, state.release.certificateArn);
    return {};
  },
};

export async function handler(event: TaskEvent): Promise<Record<string, unknown>> {
  const step = steps[event?.step];
  if (!step) throw new Error(`unknown step ${String(event?.step)}`);
  return step(event.state);
}
