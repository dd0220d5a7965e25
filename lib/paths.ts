import * as path from 'node:path';

/** The repository root: CDK reads handler entries and workflow definitions relative to it. */
export const REPO_ROOT = path.resolve(__dirname, '..');

/** The Step Functions definitions (ASL): CDK deploys them and local mode's runner runs the same files. */
export const WORKFLOWS_DIR = path.join(REPO_ROOT, 'lib', 'workflows');

/** The Lambda entry of an area or platform handler: `functions/<name>/handler.ts`. */
export function handlerEntry(name: string): string {
  return path.join(REPO_ROOT, 'functions', name, 'handler.ts');
}
