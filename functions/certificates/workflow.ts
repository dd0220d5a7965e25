import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { sfnClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { randomHex } from '../platform/ids';
import type { TrackingCertificate } from '../domains/domain-store';

// Starting the tracking-certificate workflow (lib/workflows/tracking-certificate.asl.json), apart
// from the rest of the area so that the domains area (which releases certificates) needs only this.

/** What the workflow is given to issue a certificate. */
export interface IssueJob {
  accountId: string;
  domain: string;
  host: string;
  jobId: string;
  /** RFC 3339: when the job stops waiting for ACM. */
  deadline: string;
  /** The Wait between two questions to ACM. */
  pollSeconds: number;
  /** The certificate this one replaces (a regeneration), retired once the new one serves the host. */
  previousArn?: string;
}

/** What it is given to take a host's certificate down (the domain was deleted or its tracking host moved). */
export interface ReleaseJob {
  host: string;
  certificateArn: string;
}

export type WorkflowInput = { action: 'issue'; job: IssueJob } | { action: 'release'; release: ReleaseJob };

export async function startWorkflow(input: WorkflowInput, name: string): Promise<void> {
  const stateMachineArn = env().CERTIFICATE_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('CERTIFICATE_STATE_MACHINE_ARN is not configured');
  await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
}

/**
 * Takes down what a certificate job made (custom domain name, ACM certificate), in the workflow:
 * API Gateway lets a certificate go only a while after its domain name is deleted. A job that has
 * not yet got a certificate needs nothing: it finds itself superseded and cleans up after itself.
 */
export async function releaseCertificate(cert: TrackingCertificate): Promise<void> {
  if (!cert.certificateArn) return;
  await startWorkflow({ action: 'release', release: { host: cert.host, certificateArn: cert.certificateArn } }, `release-${randomHex(12)}`);
}
