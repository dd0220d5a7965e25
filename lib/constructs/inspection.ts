import { Duration, Lazy, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { INSPECT_RETENTION_DAYS } from '../../functions/inspect/common/inspect-store';
import { queueWorker } from '../../functions/workers';
import { type AreaGrantee, type AreaResources, grantInspectObjects, grantInspectWorker } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { Workflow, workflowTaskEntry } from './workflows';
import type { QueueWithDlq } from './queue';
import { workerOf, workerQueue, workerTimeout } from './queue-worker';

const INSPECT = queueWorker('inspect');

/** The inspection worker's timeout and bound (functions/workers.ts). */
export const INSPECT_WORKER_TIMEOUT = workerTimeout(INSPECT);
export const INSPECT_WORKER_CONCURRENCY = INSPECT.maxConcurrency;
/**
 * One client's render: Chromium's start (unpacking it to /tmp on a cold start), the email's images,
 * up to four screenshots and the thumbnails. Under the workflow's 180-second step timeout (the
 * spec's 3-minute re-queue), so Lambda's own timeout ends a stuck render first, with its error.
 */
export const PREVIEW_RENDER_TIMEOUT = Duration.seconds(150);
/** Chromium with one page at DPR 2, and sharp on its screenshot; Lambda's CPU share grows with memory too. */
export const PREVIEW_RENDER_MEMORY_MB = 2048;
/** Streaming screenshots from S3 through a zip into a multipart upload: bounded by the export step's 600 s. */
const PREVIEW_EXPORT_TIMEOUT = Duration.seconds(540);

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
  previewWorkflow?: Workflow;
  exportWorkflow?: Workflow;
  renderTask?: PlatformFunction;
  exportTask?: PlatformFunction;

  /** The real-client tier's credentials (a Secrets Manager secret), read by whatever makes or finishes real-client tests. */
  private readonly realClientsSecretArn?: string;

  constructor(scope: Construct, id: string, props: { accessLogs: s3.IBucket; realClientsSecretArn?: string }) {
    super(scope, id);
    this.realClientsSecretArn = props.realClientsSecretArn;
    this.bucket = new s3.Bucket(this, 'Results', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'inspections/',
      // Not versioned: objects are a test's inputs, results and screenshots, written under the
      // test's own keys and deleted with it; a version kept after that would outlive the 90 days
      // the lifecycle rule (and the test's record) promise.
      versioned: false,
      lifecycleRules: [{ expiration: Duration.days(INSPECT_RETENTION_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // The console reads screenshots and export zips with fetch: the API answers with a redirect
      // to a presigned URL, and after a cross-origin redirect the browser's Origin is "null", so
      // no origin can be named. The presigned signature is the credential; CORS only lets the
      // page read what it was already allowed to fetch.
      cors: [{ allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD], allowedOrigins: ['*'], maxAge: 3000 }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.queue = workerQueue(this, 'Queue', INSPECT);
  }

  /**
   * The preview workflows (lib/workflows/email-preview.asl.json, preview-export.asl.json) in
   * `scope`, inspection's nested stack (ProductApi's `prepare`), before its areas: the preview area
   * starts them, so it gets their ARNs and StartExecution on them. Their task functions come with
   * the workers (`addWorkers`), named here lazily.
   */
  addPreviewWorkflows(scope: Construct): { environment: Record<string, string>; grant: (area: string, fn: PlatformFunction) => void } {
    const taskArn = (name: string, task: () => PlatformFunction | undefined) =>
      Lazy.string({
        produce: () => {
          const fn = task();
          if (!fn) throw new Error(`Inspection: addWorkers() was not called, so the ${name} task does not exist`);
          return fn.fn.functionArn;
        },
      });
    const preview = new Workflow(scope, 'PreviewWorkflow', { name: 'email-preview', substitutions: { RenderTaskFunctionArn: taskArn('render', () => this.renderTask) } });
    const exportJobs = new Workflow(scope, 'PreviewExportWorkflow', { name: 'preview-export', substitutions: { ExportTaskFunctionArn: taskArn('export', () => this.exportTask) } });
    this.previewWorkflow = preview;
    this.exportWorkflow = exportJobs;
    return {
      environment: { PREVIEW_STATE_MACHINE_ARN: preview.stateMachine.stateMachineArn, PREVIEW_EXPORT_STATE_MACHINE_ARN: exportJobs.stateMachine.stateMachineArn },
      grant: (area, fn) => {
        if (area !== 'inspect/preview') return;
        fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['states:StartExecution'], resources: [preview.stateMachine.stateMachineArn, exportJobs.stateMachine.stateMachineArn] }));
        this.grantRealClients(fn.grantee);
      },
    };
  }

  /**
   * What the inbound receive worker needs to turn mail to preview addresses into preview tests
   * (functions/inspect/preview/inbound-preview.ts): the preview workflow's ARN, starting it, and
   * writing a test's HTML to the bucket.
   */
  previewIntake(): { environment: Record<string, string>; grant: (grantee: AreaGrantee) => void } {
    const preview = this.previewWorkflow;
    if (!preview) throw new Error('Inspection: addPreviewWorkflows() must come before previewIntake()');
    return {
      environment: { PREVIEW_STATE_MACHINE_ARN: preview.stateMachine.stateMachineArn },
      grant: (grantee) => {
        grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['states:StartExecution'], resources: [preview.stateMachine.stateMachineArn] }));
        grantInspectObjects(grantee, this.bucket, ['s3:PutObject']);
        this.grantRealClients(grantee);
      },
    };
  }

  /** The worker, in `scope`: inspection's nested stack, beside its API areas (the region's stack is near its resource limit). */
  addWorkers(scope: Construct, environment: Record<string, string>, resources: AreaResources): void {
    const grant = (grantee: AreaGrantee) => grantInspectWorker(grantee, resources);
    this.worker = workerOf(scope, 'InspectionWorker', INSPECT, { environment, queue: this.queue.queue, grant });
    if (this.previewWorkflow && this.exportWorkflow) this.addPreviewTasks(scope, environment, resources, this.previewWorkflow, this.exportWorkflow);
  }

  /** Reading the real-client tier's credentials, when it is configured. */
  private grantRealClients(grantee: AreaGrantee): void {
    if (!this.realClientsSecretArn) return;
    grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.realClientsSecretArn] }));
  }

  /** The preview workflows' task functions: rendering (Chromium, x86_64) and zipping exports; each workflow may invoke its own only. */
  private addPreviewTasks(scope: Construct, environment: Record<string, string>, resources: AreaResources, preview: Workflow, exportJobs: Workflow): void {
    this.renderTask = new PlatformFunction(scope, 'PreviewRenderTask', {
      entry: workflowTaskEntry('email-preview', 'RenderTaskFunctionArn'),
      description: 'Email previews: renders one client of a test in headless Chromium and stores its screenshots',
      environment,
      timeout: PREVIEW_RENDER_TIMEOUT,
      memorySize: PREVIEW_RENDER_MEMORY_MB,
    });
    this.exportTask = new PlatformFunction(scope, 'PreviewExportTask', {
      entry: workflowTaskEntry('preview-export', 'ExportTaskFunctionArn'),
      description: 'Email previews: zips a test\'s screenshots into S3 for an export job',
      environment,
      timeout: PREVIEW_EXPORT_TIMEOUT,
      memorySize: 1024,
    });
    grantInspectWorker(this.renderTask.grantee, resources);
    this.grantRealClients(this.renderTask.grantee);
    grantInspectWorker(this.exportTask.grantee, resources);
    preview.stateMachine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.renderTask.fn.functionArn] }));
    exportJobs.stateMachine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.exportTask.fn.functionArn] }));
  }
}
