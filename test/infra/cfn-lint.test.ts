import type { App } from 'aws-cdk-lib';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Workflow } from '../../lib/constructs/workflows';
import { removeSynthOutput, scratchStack, synthPlatform } from './synth';

// Optional tool: run only where `cfn-lint` is installed and actually starts.
const cfnLint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const available = cfnLint.status === 0;
const maybe = available ? test : test.skip;

/**
 * W3005 ("dependency already enforced by a GetAtt") is CDK's own output: a Lambda function both
 * references its role and lists it in DependsOn. Everything else cfn-lint reports fails the test.
 */
const IGNORED_CHECKS = ['W3005'];

function templatesOf(app: App): string[] {
  return app.synth().stacks.map((stack) => stack.templateFullPath);
}

describe(`cfn-lint${available ? ` (${cfnLint.stdout.trim()})` : ' (not installed: skipped)'}`, () => {
  let aslDir: string;

  beforeAll(() => {
    aslDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-asl-'));
    fs.writeFileSync(path.join(aslDir, 'noop.asl.json'), JSON.stringify({ StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } }));
  });

  afterAll(() => {
    fs.rmSync(aslDir, { recursive: true, force: true });
    removeSynthOutput();
  });

  maybe(
    'finds nothing in the synthesized templates',
    () => {
      const customDomain = { domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000' };
      // The constructs the product stack does not use yet, so they are linted before it does.
      const scratch = scratchStack();
      new Workflow(scratch, 'Noop', { name: 'noop', directory: aslDir });
      const templates = [
        ...templatesOf(synthPlatform('us').app),
        ...templatesOf(synthPlatform('eu').app),
        ...templatesOf(synthPlatform('eu', { customDomain }).app),
        ...templatesOf(scratch.node.root as App),
      ];
      expect(templates).toHaveLength(4);

      const lint = spawnSync('cfn-lint', ['--ignore-checks', ...IGNORED_CHECKS, '--', ...templates], { encoding: 'utf8' });
      expect(`${lint.stdout}${lint.stderr}`.trim()).toBe('');
      expect(lint.status).toBe(0);
    },
    120_000,
  );
});
