import { Stack, Stage, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { PlatformRegion } from '../../lib/regions';
import { PlatformStack } from '../../lib/platform-stack';
import { AWS_REGIONS, removeSynthOutput, SANDBOX_DOMAIN, type SynthesizedPlatform, synthPlatform, testApp } from './synth';

afterAll(removeSynthOutput);

interface Acknowledgement {
  path: string;
  id: string;
  reason: string;
  stackWide: boolean;
}

interface Finding {
  id: string;
  severity: string;
  path: string;
}

function acknowledgementsIn(scope: IConstruct): Acknowledgement[] {
  return scope.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
          stackWide: Stack.isStack(c) || Stage.isStage(c),
        })),
      ),
  );
}

/** cdk-nag 3 reports through CDK's policy validation, not annotations: ask the pack directly. */
function findingsIn(scope: IConstruct): Finding[] {
  return new AwsSolutionsChecks().validateScope(scope).violations.flatMap((v) =>
    v.violatingResources.map((r) => ({ id: v.ruleName, severity: v.severity ?? 'unknown', path: r.constructPath ?? '?' })),
  );
}

const covers = (ack: Acknowledgement, finding: Finding) =>
  ack.id === finding.id && (finding.path === ack.path || finding.path.startsWith(`${ack.path}/`));

describe.each<PlatformRegion>(['us', 'eu'])('cdk-nag AwsSolutions on the %s stack', (region) => {
  let platform: SynthesizedPlatform;

  beforeAll(() => {
    platform = synthPlatform(region);
  });

  test('reports nothing that is not acknowledged (errors or warnings)', () => {
    expect(findingsIn(platform.stack).map((f) => `${f.severity} ${f.id} at ${f.path}`)).toEqual([]);
  });

  test('CDK itself reports no errors', () => {
    expect(Annotations.fromStack(platform.stack).findError('*', Match.anyValue())).toEqual([]);
  });

  test('acknowledgements sit on resources, each with a reason; none is stack- or app-wide', () => {
    const acks = acknowledgementsIn(platform.app);
    expect(acks.length).toBeGreaterThan(0);
    expect(acks.filter((a) => a.stackWide)).toEqual([]);
    for (const ack of acks) expect(ack.reason.length).toBeGreaterThan(40);
    expect(platform.template.toJSON().Metadata?.cdk_nag).toBeUndefined();
  });

  test('every acknowledgement answers a finding that exists without it, and only those', () => {
    const acks = acknowledgementsIn(platform.app);
    const spy = jest.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);
    let bare: SynthesizedPlatform;
    try {
      bare = synthPlatform(region);
    } finally {
      spy.mockRestore();
    }
    const raw = findingsIn(bare.stack);
    expect(raw.filter((f) => !acks.some((a) => covers(a, f)))).toEqual([]);
    expect(acks.filter((a) => !raw.some((f) => covers(a, f)))).toEqual([]);
  });
});

describe('AwsSolutionsChecks as a validation plugin (as bin/app.ts registers it)', () => {
  test('lets both platform stacks synthesize', () => {
    const app = testApp();
    for (const region of ['us', 'eu'] as const) {
      new PlatformStack(app, `Mailplane-${region}`, { platformRegion: region, sandboxDomain: SANDBOX_DOMAIN, env: { region: AWS_REGIONS[region] } });
    }
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  test('fails the synth on an unacknowledged finding (control: the check is live)', () => {
    const app = testApp();
    new s3.Bucket(new Stack(app, 'Control'), 'Unlogged');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
  });
});
