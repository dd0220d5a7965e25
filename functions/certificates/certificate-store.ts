import { patchDomainWhere, type DomainItem, type TrackingCertificate } from '../domains/domain-store';

type DomainRef = Pick<DomainItem, 'accountId' | 'name'>;

const JOB = ['trackingCertificate', 'jobId'] as const;

/**
 * Replaces the domain's certificate record while it still belongs to the job `expectedJobId`
 * (undefined: while it has none). False when another job took it over or the domain is gone:
 * the caller's job is then superseded. `cert` undefined removes the record; `also` sets other
 * attributes of the domain in the same write.
 */
export async function replaceCertificate(domain: DomainRef, expectedJobId: string | undefined, cert: TrackingCertificate | undefined, also: Partial<DomainItem> = {}): Promise<boolean> {
  return patchDomainWhere(domain, JOB, expectedJobId, { ...also, trackingCertificate: cert });
}
