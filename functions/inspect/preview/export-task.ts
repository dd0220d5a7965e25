import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import archiver from 'archiver';
import { getItem, updateItemIf } from '../../data/store';
import { s3Client } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { clientState, exportKey, screenshotKey, type PreviewClientState } from './preview-store';
import { type ExportJob, exportKeys } from './export-store';
import { caughtMessage, type CaughtError } from './workflow-error';

/**
 * The export workflow's task (lib/workflows/preview-export.asl.json). `export`: streams the chosen
 * clients' screenshots (`<client_id>/<name>.png`, contract §5.10) from S3 through a zip into an S3
 * multipart upload, so no screenshot nor the zip is ever whole in memory, then records the job
 * Completed with the clients it could not include (not Complete). `fail`: the tries are spent;
 * the job is recorded Failed with the error.
 */

export type ExportTaskEvent = { step: 'export'; job: Pick<ExportJob, 'accountId' | 'testId' | 'jobId'> } | { step: 'fail'; job: Pick<ExportJob, 'accountId' | 'testId' | 'jobId'>; error?: CaughtError };

const jobKey = (job: Pick<ExportJob, 'accountId' | 'testId' | 'jobId'>) => exportKeys.previewExport(job.accountId, job.testId, job.jobId);

async function objectStream(key: string): Promise<Readable> {
  const out = await s3Client().send(new GetObjectCommand({ Bucket: env().INSPECT_BUCKET, Key: key }));
  return out.Body as Readable;
}

async function exportZip(ref: Pick<ExportJob, 'accountId' | 'testId' | 'jobId'>): Promise<{ status: string }> {
  const job = await getItem<ExportJob>(jobKey(ref), { consistent: true });
  if (!job || job.job_status !== 'Processing') return { status: job?.job_status ?? 'gone' };

  const states = await Promise.all(job.clients.map((clientId) => clientState(job.accountId, job.testId, clientId)));
  const included = states.filter((state): state is PreviewClientState => state?.status === 'Complete' && Boolean(state.screenshots?.length));
  const failed = job.clients.filter((clientId) => !included.some((state) => state.clientId === clientId));
  if (!included.length) {
    await updateItemIf(jobKey(job), { job_status: 'Processing' }, { job_status: 'Failed', failed_clients: failed, error: { code: 'no_screenshots', message: 'None of the clients has finished screenshots to export' } });
    return { status: 'Failed' };
  }

  const zip = archiver('zip', { zlib: { level: 6 } });
  const body = new PassThrough();
  zip.pipe(body);
  const upload = new Upload({ client: s3Client(), params: { Bucket: env().INSPECT_BUCKET, Key: exportKey(job.accountId, job.testId, job.jobId), Body: body, ContentType: 'application/zip' }, queueSize: 2, partSize: 5 * 1024 * 1024 });
  const uploaded = upload.done();
  const zipFailed = once(zip, 'error').then(([error]) => Promise.reject(error as Error));
  const writing = (async () => {
    for (const state of included) {
      for (const name of state.screenshots!) {
        // One screenshot at a time: the next is fetched only once the zip has taken the last.
        zip.append(await objectStream(screenshotKey(state, name)), { name: `${state.clientId}/${name}.png` });
        await once(zip, 'entry');
      }
    }
    await zip.finalize();
  })();
  await Promise.race([Promise.all([writing, uploaded]), zipFailed]);
  await updateItemIf(jobKey(job), { job_status: 'Processing' }, { job_status: 'Completed', failed_clients: failed, completedAt: new Date().toISOString() });
  return { status: 'Completed' };
}

async function fail(ref: Pick<ExportJob, 'accountId' | 'testId' | 'jobId'>, error?: CaughtError): Promise<{ status: string }> {
  const message = caughtMessage(error);
  await updateItemIf(jobKey(ref), { job_status: 'Processing' }, { job_status: 'Failed', error: { code: 'export_failed', message: message.slice(0, 500) } });
  return { status: 'Failed' };
}

export async function handler(event: ExportTaskEvent): Promise<{ status: string }> {
  return event.step === 'export' ? exportZip(event.job) : fail(event.job, event.error);
}
