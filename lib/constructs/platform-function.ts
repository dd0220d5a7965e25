import type { AreaGrantee } from './area-permissions';
import { Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { REPO_ROOT } from '../paths';
import { sideBundlesCommand, sideBundlesOfEntry } from '../side-bundles';

/** How every platform function is bundled; exported so `npm run bench` bundles exactly the same way. */
export const PLATFORM_BUNDLING = {
  minify: true,
  sourceMap: true,
  // Maps without the sources' text: stack traces still name file and line, and Node reads a third
  // of the bytes at every cold start (NODE_OPTIONS=--enable-source-maps parses the map on load).
  sourcesContent: false,
  target: 'node24',
  format: OutputFormat.CJS,
  externalModules: [],
  // Packages' ES module builds first: esbuild can drop what a handler never imports from them (the
  // AWS SDK's, above all), which their CommonJS builds do not allow. As AWS advises for SDK v3.
  mainFields: ['module', 'main'],
  // There is no Docker engine where we synthesize; esbuild is a devDependency.
  forceDockerBundling: false,
  // The bundle-size summary on every synth is noise; real esbuild warnings still show.
  logLevel: LogLevel.WARNING,
} satisfies BundlingOptions;

/**
 * Packages installed into a function's asset (node_modules beside index.js) instead of bundled, by
 * entry: sharp carries a native libvips build, so npm must fetch the one for Lambda's linux-arm64
 * rather than the synthesizing machine's; jsdom resolves files of its own at load
 * (`require.resolve('./xhr-sync-worker.js')`), which a single bundled file cannot satisfy.
 */
const INSTALLED_MODULES: Readonly<Record<string, readonly string[]>> = {
  [path.join('functions', 'inspect', 'job-worker.ts')]: ['sharp', 'jsdom'],
  [path.join('functions', 'inspect', 'images', 'handler.ts')]: ['sharp'],
  // Chromium itself (brotli-packed, unpacked to /tmp at first launch) and its driver.
  [path.join('functions', 'inspect', 'preview', 'render-task.ts')]: ['@sparticuz/chromium', 'playwright-core', 'sharp'],
};

/**
 * Entries that run on x86_64 rather than arm64: @sparticuz/chromium's npm package carries
 * Chromium for x86-64 only (its arm64 build is a separate download, which a deploy must not need).
 */
const X86_64_ENTRIES: ReadonlySet<string> = new Set([path.join('functions', 'inspect', 'preview', 'render-task.ts')]);

const isX86 = (entry: string) => X86_64_ENTRIES.has(path.relative(REPO_ROOT, entry));

/** npm's platform selection for optional native packages (sharp's @img/sharp-linux-arm64): Lambda's, not ours. */
const lambdaNpmPlatform = (entry: string) => ({ npm_config_os: 'linux', npm_config_cpu: isX86(entry) ? 'x64' : 'arm64', npm_config_libc: 'glibc' });

/**
 * PLATFORM_BUNDLING for one entry: with its side bundles (lib/side-bundles.ts), if it has any,
 * external to index.js and built beside it after esbuild has bundled the entry, and the packages
 * it installs rather than bundles (INSTALLED_MODULES).
 */
export function platformBundlingOf(entry: string): BundlingOptions {
  const installed = INSTALLED_MODULES[path.relative(REPO_ROOT, entry)];
  const base: BundlingOptions = installed ? { ...PLATFORM_BUNDLING, nodeModules: [...installed], environment: lambdaNpmPlatform(entry) } : PLATFORM_BUNDLING;
  const side = sideBundlesOfEntry(entry);
  if (!side) return base;
  return {
    ...base,
    externalModules: [...PLATFORM_BUNDLING.externalModules, ...side.sides.map((s) => s.importPath)],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [sideBundlesCommand(side.name, outputDir)],
    },
  };
}

export interface PlatformFunctionProps {
  /** Absolute path of the TypeScript entry; its export `handler` is the Lambda handler. */
  entry: string;
  description?: string;
  environment?: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
  logRetention?: logs.RetentionDays;
}

/**
 * A Lambda built the one way every platform function is built: nodejs24.x on arm64 (x86_64 for
 * Chromium, X86_64_ENTRIES), bundled by
 * the local esbuild with the AWS SDK inside (so the SDK version is the one we tested), its own log
 * group with a retention, X-Ray tracing, and a role that may only write to that log group.
 */
export class PlatformFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  /** What a grant in area-permissions.ts takes: this function's role, its findings acknowledged here. */
  get grantee(): AreaGrantee {
    return { role: this.role, scope: this };
  }

  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });

    // Our own role instead of AWSLambdaBasicExecutionRole: that managed policy may create and write
    // any log group in the account, this one only writes to the function's own.
    this.role = new iam.Role(this, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.fn = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      // Pinned rather than "latest": Lambda runs the Node major local mode and the tests run on (.nvmrc).
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: isX86(props.entry) ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(29),
      role: this.role,
      logGroup: this.logGroup,
      environment: props.environment,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      bundling: platformBundlingOf(props.entry),
    });

    // Tracing is switched on here rather than with the `tracing` prop, which would put the X-Ray
    // wildcard in the role's default policy, where acknowledging it would also hide any later
    // wildcard grant. In its own policy the acknowledgement covers exactly these two actions.
    const tracing = new iam.Policy(this, 'TracingPolicy', {
      roles: [this.role],
      statements: [new iam.PolicyStatement({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] })],
    });
    const cfn = this.fn.node.defaultChild as lambda.CfnFunction;
    cfn.tracingConfig = { mode: lambda.Tracing.ACTIVE };
    cfn.node.addDependency(tracing);
    Validations.of(tracing).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions; this policy holds nothing else.',
    });
  }
}
