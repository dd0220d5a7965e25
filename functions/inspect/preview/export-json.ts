import type { ApiRequest } from '../../platform/http/pipeline';
import { findExport, type ExportJob } from './export-store';
import { PreviewError } from './preview-error';

/**
 * An export job as contract §5.10 shows it. `zip_url` is our download path, which answers with a
 * fresh presigned S3 URL on AWS (a URL presigned when the job ended would die with the task's
 * temporary credentials, long before 24 hours) and the zip itself in local mode.
 */
export function exportJson(req: ApiRequest, job: ExportJob) {
  return {
    job_id: job.jobId,
    test_id: job.testId,
    clients: job.clients,
    job_status: job.job_status,
    ...(job.job_status === 'Completed' ? { zip_url: `${req.baseUrl}/v2/preview/tests/${job.testId}/exports/${job.jobId}/zip` } : {}),
    ...(job.failed_clients?.length ? { failed_clients: job.failed_clients } : {}),
    ...(job.error ? { error: job.error } : {}),
  };
}

export async function requireExport(accountId: string, testId: string, jobId: string): Promise<ExportJob> {
  const job = await findExport(accountId, testId, jobId);
  if (!job) throw new PreviewError(404, 'NotFound', `No export job ${jobId} for test ${testId}`);
  return job;
}
