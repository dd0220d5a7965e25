import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { getItem, putItem, queryAll, type Key } from '../../data/store';
import { sfnClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { objectId } from '../../platform/ids';
import { PREVIEW_RETENTION_SECONDS } from './preview-store';
import { defineEntity } from '../../data/key-registry';

export const exportKeys = defineEntity(
  'preview exports',
  {
    previewExport: { what: "a preview test's export jobs; job ids start with their creation second, so the last is the latest", pk: 'ACCT#<account>#PREVIEWEXPORT#<test id>', sk: '<job id>', key: (accountId: string, testId: string, jobId = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEWEXPORT#${testId}`, sk: jobId }) },
  },
  [{ what: "a preview test's export jobs", pk: 'ACCT#<account>#PREVIEWEXPORT#<test id>' }],
);

/** An export job (contract §5.10): `Processing`, then `Completed` with a zip or `Failed` with an error. */
export interface ExportJob {
  accountId: string;
  testId: string;
  jobId: string;
  clients: string[];
  job_status: 'Processing' | 'Completed' | 'Failed';
  failed_clients?: string[];
  error?: { code: string; message: string };
  createdAt: string;
  completedAt?: string;
  ttl: number;
}

/** Records the job and starts its execution (lib/workflows/preview-export.asl.json). */
export async function startExport(accountId: string, testId: string, clients: string[], now = Date.now()): Promise<ExportJob> {
  const stateMachineArn = env().PREVIEW_EXPORT_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('PREVIEW_EXPORT_STATE_MACHINE_ARN is not configured');
  const job: ExportJob = { accountId, testId, jobId: objectId(now), clients, job_status: 'Processing', createdAt: new Date(now).toISOString(), ttl: Math.floor(now / 1000) + PREVIEW_RETENTION_SECONDS };
  await putItem(exportKeys.previewExport(accountId, testId, job.jobId), job);
  await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name: `export-${job.jobId}`, input: JSON.stringify({ accountId, testId, jobId: job.jobId }) }));
  return job;
}

export function findExport(accountId: string, testId: string, jobId: string): Promise<ExportJob | undefined> {
  if (!/^[0-9a-f]{24}$/.test(jobId)) return Promise.resolve(undefined);
  return getItem<ExportJob>(exportKeys.previewExport(accountId, testId, jobId), { consistent: true });
}

/** The latest job of a test: ids begin with their creation second, and equal seconds order by createdAt. */
export async function latestExport(accountId: string, testId: string): Promise<ExportJob | undefined> {
  const jobs = await exportsOf(accountId, testId);
  return jobs.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.jobId.localeCompare(b.jobId)).at(-1);
}

export async function exportsOf(accountId: string, testId: string): Promise<ExportJob[]> {
  return queryAll<ExportJob>({ pk: exportKeys.previewExport(accountId, testId).pk }, '');
}
