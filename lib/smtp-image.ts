import { buildSync } from 'esbuild';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PLATFORM_BUNDLING } from './constructs/platform-function';
import { esbuildOptionsOf } from './esbuild-options';
import { REPO_ROOT } from './paths';

/** The SMTP service's entry (functions/smtp/main.ts) and its image's Dockerfile. */
const SMTP_ENTRY = path.join(REPO_ROOT, 'functions', 'smtp', 'main.ts');
const SMTP_DOCKERFILE = path.join(REPO_ROOT, 'lib', 'smtp.Dockerfile');

/**
 * The Docker build context of the SMTP service's image: the entry bundled by the local esbuild
 * exactly as the Lambdas are (PLATFORM_BUNDLING: minified, AWS SDK inside, source map), and the
 * Dockerfile, which only copies it onto Node's image. Built at synth, so the image builds without
 * npm or the repository. With `bundle` false (tests that skip bundling, as CDK's
 * bundling-stacks does for Lambdas) the context holds a placeholder instead.
 */
export function smtpImageContext(outDir: string, bundle: boolean): string {
  mkdirSync(outDir, { recursive: true });
  if (bundle) {
    buildSync({ ...esbuildOptionsOf(PLATFORM_BUNDLING), entryPoints: [SMTP_ENTRY], outfile: path.join(outDir, 'main.js'), logLevel: 'warning' });
  } else {
    writeFileSync(path.join(outDir, 'main.js'), "throw new Error('bundling was skipped for this synth');\n");
    writeFileSync(path.join(outDir, 'main.js.map'), '{}\n');
  }
  copyFileSync(SMTP_DOCKERFILE, path.join(outDir, 'Dockerfile'));
  return outDir;
}
