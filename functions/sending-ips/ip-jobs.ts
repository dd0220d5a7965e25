import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getItem } from '../data/store';
import { listDomainItems, type DomainItem } from '../domains/domain-store';
import { sqsClient } from '../platform/aws-clients';
import { accountsCovered } from '../accounts/subaccount-list';
import { enroll } from './dynamic-pools';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { assignDomain, changeDelegates, linkedDomains, removePool, removePoolDelegation, savePoolDelegation, type DomainAssignment, type IpPoolItem } from './ip-pools';
import { ipPoolKeys } from './pool-records';

/**
 * Work the IP routes answer `started` for and finish after the reply (Mailgun's rule 6): every
 * step is idempotent, so a job received twice, or retried after a crash halfway, ends the same.
 */
export type IpJob =
  /** A pool's domains (the owner's and its delegates') move to the replacement, then the pool goes. */
  | { kind: 'delete-pool'; ownerId: string; poolId: string; referenceId: string }
  /** An IP goes onto every domain of the account that has its own IPs or none (not those on a DIPP). */
  | { kind: 'assign-ip'; accountId: string; ip: string; referenceId: string }
  /** An IP comes off every domain of the account, the alternative put on in its place. */
  | { kind: 'unassign-ip'; accountId: string; ip: string; alternative?: string; referenceId: string }
  /** A subaccount loses a delegated pool: its domains on it move to the shared addresses. */
  | { kind: 'revoke-pool'; ownerId: string; poolId: string; subaccountId: string; referenceId: string }
  /** Every domain of the account (and its subaccounts', when asked) not in dynamic pools yet is enrolled. */
  | { kind: 'enroll-all'; ownerId: string; includeSubaccounts: boolean; referenceId: string };

export async function queueIpJob(job: IpJob): Promise<void> {
  const queueUrl = env().IP_JOB_QUEUE_URL;
  if (!queueUrl) throw new Error('IP_JOB_QUEUE_URL is not configured');
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job) }));
}

/** Domains that can have dedicated IPs: not the sandbox, which always sends from the shared addresses. */
export const canHaveIps = (domain: DomainItem) => domain.type !== 'sandbox';

async function runIpJob(job: IpJob): Promise<void> {
  switch (job.kind) {
    case 'delete-pool': {
      const pool = await getItem<IpPoolItem>(ipPoolKeys.ipPool(job.ownerId, job.poolId), { consistent: true });
      if (!pool?.deleting) return;
      const replacement = pool.deleting.replacement;
      // Rule 6: a pool delegated to subaccounts hands them its replacement pool too.
      if (replacement !== 'shared' && 'poolId' in replacement) {
        for (const subaccountId of pool.delegatedTo ?? []) await delegatePool({ accountId: replacement.ownerId ?? pool.accountId, poolId: replacement.poolId }, subaccountId);
      }
      for (const domain of await linkedDomains(pool)) {
        // A subaccount's domain follows a replacement pool (delegated to it below) or goes to the shared addresses.
        const forDomain: DomainAssignment = domain.accountId === pool.accountId || replacement === 'shared' || 'poolId' in replacement ? replacement : 'shared';
        await assignDomain(domain, forDomain);
      }
      for (const subaccountId of pool.delegatedTo ?? []) await removePoolDelegation(subaccountId, pool.poolId);
      await removePool(pool);
      return;
    }
    case 'assign-ip':
      for (const domain of (await listDomainItems(job.accountId)).filter((d) => canHaveIps(d) && !d.ipPoolId && !d.ips?.includes(job.ip))) {
        await assignDomain(domain, { ips: [...(domain.ips ?? []), job.ip] });
      }
      return;
    case 'unassign-ip':
      for (const domain of (await listDomainItems(job.accountId)).filter((d) => !d.ipPoolId && d.ips?.includes(job.ip))) {
        const kept = domain.ips!.filter((ip) => ip !== job.ip);
        if (job.alternative && !kept.includes(job.alternative)) kept.push(job.alternative);
        await assignDomain(domain, { ips: kept });
      }
      return;
    case 'enroll-all': {
      const accounts = await accountsCovered(job.ownerId, job.includeSubaccounts);
      for (const accountId of accounts) {
        for (const domain of (await listDomainItems(accountId)).filter((d) => canHaveIps(d) && !d.dynamicPool)) await enroll(domain, job.ownerId);
      }
      return;
    }
    case 'revoke-pool': {
      const domains = await listDomainItems(job.subaccountId);
      for (const domain of domains.filter((d) => d.ipPoolId === job.poolId && d.ipPoolOwnerId === job.ownerId)) await assignDomain(domain, 'shared');
      await removePoolDelegation(job.subaccountId, job.poolId);
      await changeDelegates({ accountId: job.ownerId, poolId: job.poolId }, (delegates) => delegates.filter((id) => id !== job.subaccountId));
      return;
    }
  }
}

/** Delegates a pool to a subaccount (idempotent): the delegation the subaccount reads, and the pool's list of delegates. */
export async function delegatePool(pool: Pick<IpPoolItem, 'accountId' | 'poolId'>, subaccountId: string): Promise<void> {
  // The pool's list first: a delegation item without it would outlive a deletion that never saw the delegate.
  if (!(await changeDelegates(pool, (delegates) => (delegates.includes(subaccountId) ? delegates : [...delegates, subaccountId])))) return;
  await savePoolDelegation(pool, subaccountId);
}

/** The IP job queue's worker: each message one job; a failed one comes back, and is safe to run again. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await runIpJob(JSON.parse(record.body) as IpJob);
    } catch (error) {
      logger.error('IP job failed', { messageId: record.messageId, error: (error as Error).message });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
