import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../lib/paths';
import { PlatformStack, type PlatformStackProps } from '../../lib/platform-stack';
import { DEFAULT_AWS_REGIONS as AWS_REGIONS, type PlatformRegion } from '../../lib/regions';

export { AWS_REGIONS };
export const SANDBOX_DOMAIN = 'sandbox.mail.example.com';

// Each synth writes a cloud assembly; keep them under one directory per test file and remove it.
let outRoot: string | undefined;

function freshOutdir(): string {
  outRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-infra-'));
  return fs.mkdtempSync(path.join(outRoot, 'app-'));
}

/** Removes every cloud assembly this test file synthesized (call it from afterAll). */
export function removeSynthOutput(): void {
  if (outRoot) fs.rmSync(outRoot, { recursive: true, force: true });
  outRoot = undefined;
}

/**
 * An App with cdk.json's feature flags, so tests see the templates `cdk synth` produces, except
 * that Lambda bundles are not built (CDK's own `aws:cdk:bundling-stacks` switch): bundling every
 * function took 5-10 s of each synth and changes nothing in a template but asset hashes. The real
 * bundles are built by app.test.ts, which runs bin/app.ts as the CDK CLI does, and by `cdk synth`.
 *
 * CDK's built-in CloudFormation validation is off too: it loads a WebAssembly rule engine into
 * every test file (about 6 s of CPU each) and, without the feature flag that makes its findings
 * errors, only prints warnings, which fail no test. `cdk synth` and bin/app.ts keep it.
 */
export function testApp(outdir: string = freshOutdir()): App {
  const { context } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir, builtinCloudFormationValidation: false });
}

export interface SynthesizedPlatform {
  app: App;
  stack: PlatformStack;
  template: Template;
}

/** One region's stack in its own app (Template.fromStack synthesizes the whole app). */
export function synthPlatform(region: PlatformRegion, extra: Partial<PlatformStackProps> = {}, outdir?: string): SynthesizedPlatform {
  const app = testApp(outdir);
  const stack = new PlatformStack(app, `Mailplane-${region}`, {
    platformRegion: region,
    sandboxDomain: SANDBOX_DOMAIN,
    env: { region: AWS_REGIONS[region] },
    ...extra,
  });
  return { app, stack, template: Template.fromStack(stack) };
}

/** A bare stack for testing one construct on its own. */
export function scratchStack(outdir?: string): Stack {
  return new Stack(testApp(outdir), 'Scratch', { env: { region: 'us-east-1' } });
}

export function logicalIdOf(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);
}
