import { DeleteCertificateCommand, DescribeCertificateCommand, GetCertificateCommand, RequestCertificateCommand } from '@aws-sdk/client-acm';
import { acmClient } from '../platform/aws-clients';

/**
 * Every certificate the platform requests carries this tag (its value: the tracking host). IAM
 * lets the platform delete only certificates with it, never the operator's own.
 */
export const TRACKING_HOST_TAG = 'mailplane:tracking-host';

/** ACM's view of one certificate, as far as a tracking certificate job needs it. */
export interface AcmCertificate {
  /** PENDING_VALIDATION, ISSUED, INACTIVE, EXPIRED, VALIDATION_TIMED_OUT, REVOKED, FAILED. */
  status: string;
  /** The CNAME that proves control of the host, once ACM has made it up. */
  validation?: { name: string; value: string };
  notAfter?: Date;
  failureReason?: string;
  inUse: boolean;
}

const isNamed = (error: unknown, ...names: string[]) => names.includes((error as Error).name);

/** Requests a DNS-validated certificate for `host`; the same `jobId` twice gets the same certificate. */
export async function requestCertificate(host: string, jobId: string): Promise<string> {
  const out = await acmClient().send(
    new RequestCertificateCommand({
      DomainName: host,
      ValidationMethod: 'DNS',
      // ACM takes up to 32 word characters, and answers a repeated token with the first certificate.
      IdempotencyToken: jobId.replace(/\W/g, '').slice(-32),
      Tags: [{ Key: TRACKING_HOST_TAG, Value: host }],
    }),
  );
  if (!out.CertificateArn) throw new Error('ACM returned no certificate ARN');
  return out.CertificateArn;
}

export async function describeCertificate(arn: string): Promise<AcmCertificate> {
  const { Certificate: c } = await acmClient().send(new DescribeCertificateCommand({ CertificateArn: arn }));
  if (!c) throw new Error(`ACM described no certificate for ${arn}`);
  const record = c.DomainValidationOptions?.find((o) => o.ResourceRecord)?.ResourceRecord;
  return {
    status: c.Status ?? 'UNKNOWN',
    validation: record?.Name && record.Value ? { name: record.Name.replace(/\.$/, ''), value: record.Value.replace(/\.$/, '') } : undefined,
    notAfter: c.NotAfter,
    failureReason: c.FailureReason,
    inUse: (c.InUseBy ?? []).length > 0,
  };
}

/** The issued certificate, PEM (the leaf: what the status route reports). */
export async function certificatePem(arn: string): Promise<string> {
  const out = await acmClient().send(new GetCertificateCommand({ CertificateArn: arn }));
  if (!out.Certificate) throw new Error(`ACM has no certificate body for ${arn}`);
  return out.Certificate.endsWith('\n') ? out.Certificate : `${out.Certificate}\n`;
}

/**
 * Deletes a certificate. `in-use` while a custom domain name still holds it (API Gateway lets go a
 * while after the domain name is deleted: callers retry), `absent` when it is already gone.
 */
export async function deleteCertificate(arn: string): Promise<'deleted' | 'absent' | 'in-use'> {
  try {
    await acmClient().send(new DeleteCertificateCommand({ CertificateArn: arn }));
    return 'deleted';
  } catch (error) {
    if (isNamed(error, 'ResourceNotFoundException')) return 'absent';
    if (isNamed(error, 'ResourceInUseException')) return 'in-use';
    throw error;
  }
}
