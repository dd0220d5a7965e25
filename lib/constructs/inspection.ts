import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { INSPECT_RETENTION_DAYS } from '../../functions/inspect/common/inspect-store';
import { INSPECT_WORKER_TIMEOUT_SECONDS } from '../../functions/inspect/job-timing';
import { REPO_ROOT } from '../paths';
import { type AreaGrantee, type AreaResources, grantInspectWorker } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import { QueueWithDlq } from './queue';
import { queueWorker } from './queue-worker';
import { visibilityTimeoutFor } from './sending';

export const INSPECT_WORKER_TIMEOUT = Duration.seconds(INSPECT_WORKER_TIMEOUT_SECONDS);
/** jsdom with axe-core over a 5 MiB email, and sharp decoding large images, need room. */
export const INSPECT_WORKER_MEMORY_MB = 2048;
/** Tests running at once per region: each fetches links or images, so this also bounds outbound load. */
export const INSPECT_WORKER_CONCURRENCY = 8;

/**
 * Inspection's background work (functions/inspect): the bucket for tests' inputs, results and
 * images (kept INSPECT_RETENTION_DAYS, as the tests are), the queue that create and reprocess fill
 * with one message per run, and its worker. A run whose message comes back (its worker died) is
 * ended Failed by the worker itself, so no dead-letter consumer is needed; the dead-letter queue
 * keeps a message whose ending failed too. Local mode wires the same (lib/local/region-host.ts).
 *
 * Why a queue and not a Step Functions Map over links or images: one test's fan-out is bounded
 * (1,000 links, 500 images) and runs within one invocation at a fixed concurrency per host, which a
 * Map would have to re-create across executions; a queue also gives each test exactly one runner.
 */
export class Inspection extends Construct {
  readonly bucket: s3.Bucket;
  readonly queue: QueueWithDlq;
  worker?: PlatformFunction;

  constructor(scope: Construct, id: string, props: { accessLogs: s3.IBucket }) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Results', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'inspections/',
      lifecycleRules: [{ expiration: Duration.days(INSPECT_RETENTION_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.queue = new QueueWithDlq(this, 'Queue', {
      visibilityTimeout: visibilityTimeoutFor(INSPECT_WORKER_TIMEOUT),
      // A second receipt ends the run Failed (functions/inspect/job-worker.ts); a third, if ending it failed.
      maxReceiveCount: 3,
    });
  }

  /** The worker, in `scope`: inspection's nested stack, beside its API areas (the region's stack is near its resource limit). */
  addWorkers(scope: Construct, environment: Record<string, string>, resources: AreaResources): void {
    const grant = (grantee: AreaGrantee) => grantInspectWorker(grantee, resources);
    this.worker = queueWorker(scope, 'InspectionWorker', {
      entry: path.join(REPO_ROOT, 'functions', 'inspect', 'job-worker.ts'),
      description: 'Queue worker: runs inspection tests (links, images, accessibility, code analysis)',
      environment,
      timeout: INSPECT_WORKER_TIMEOUT,
      memorySize: INSPECT_WORKER_MEMORY_MB,
      queue: this.queue.queue,
      grant,
      maxConcurrency: INSPECT_WORKER_CONCURRENCY,
      batchSize: 1,
    });
  }
}
