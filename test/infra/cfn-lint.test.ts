import type { App } from 'aws-cdk-lib';
import { spawnSync } from 'node:child_process';
import { removeSynthOutput, synthPlatform } from './synth';

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
  afterAll(removeSynthOutput);

  maybe(
    'finds nothing in the synthesized templates',
    () => {
      const customDomain = { domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000' };
      // Every construct, the Step Functions workflows included, is in the product stacks.
      const templates = [
        ...templatesOf(synthPlatform('us').app),
        ...templatesOf(synthPlatform('eu').app),
        ...templatesOf(synthPlatform('eu', { customDomain }).app),
      ];
      expect(templates).toHaveLength(3);

      const lint = spawnSync('cfn-lint', ['--ignore-checks', ...IGNORED_CHECKS, '--', ...templates], { encoding: 'utf8' });
      expect(`${lint.stdout}${lint.stderr}`.trim()).toBe('');
      expect(lint.status).toBe(0);
    },
    120_000,
  );
});
