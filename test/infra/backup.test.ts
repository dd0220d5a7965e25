import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { platformStackConfigs } from '../../lib/app-config';
import { messageRetentionDays } from '../../lib/constructs/data';
import { DEFAULT_MAX_MESSAGE_TTL } from '../../lib/constructs/platform-env';
import { SCHEDULE_HORIZON } from '../../lib/constructs/scheduling';
import type { PlatformStack } from '../../lib/platform-stack';
import { INSPECT_RETENTION_DAYS } from '../../functions/inspect/common/inspect-store';
import { REMOVABLE_TYPES, retainedIn } from '../../scripts/retained-resources';
import { removeSynthOutput, synthPlatform } from './synth';

afterAll(removeSynthOutput);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every template of the region: its stack's and each nested stack's, by the stack's path. */
function templates(stack: PlatformStack): Map<string, Json> {
  const nested = stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
  return new Map([stack, ...nested].map((s) => [s.node.path, Template.fromStack(s).toJSON()]));
}

const resourcesOf = (all: Map<string, Json>, type: string) => [...all.values()].flatMap((t) => Object.entries<Json>(t['Resources'] ?? {}).filter(([, r]) => r['Type'] === type));

describe('backups and retention (the us stack as made)', () => {
  let stack: PlatformStack;
  let all: Map<string, Json>;
  beforeAll(() => {
    stack = synthPlatform('us').stack;
    all = templates(stack);
  }, 180_000);

  test('the table has point-in-time recovery, streams new images, expires items by ttl, and is kept when the stack is deleted', () => {
    const tables = resourcesOf(all, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const [, table] = tables[0]!;
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(table['Properties']).toMatchObject({
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  test('stored messages expire with the longest message TTL past the scheduling horizon, screenshots and inspection results after 90 days; neither bucket is versioned', () => {
    const buckets = resourcesOf(all, 'AWS::S3::Bucket').map(([, b]) => b);
    const withPrefix = (prefix: string) => buckets.find((b) => b['Properties']['LoggingConfiguration']?.['LogFilePrefix'] === prefix)!;
    const messages = withPrefix('messages/');
    const inspections = withPrefix('inspections/');
    const days = messageRetentionDays(DEFAULT_MAX_MESSAGE_TTL.plus(SCHEDULE_HORIZON));
    expect(days).toBe(11);
    expect(messages['Properties']['LifecycleConfiguration']['Rules']).toEqual([expect.objectContaining({ ExpirationInDays: days, Status: 'Enabled' })]);
    expect(inspections['Properties']['LifecycleConfiguration']['Rules']).toEqual([expect.objectContaining({ ExpirationInDays: INSPECT_RETENTION_DAYS, Status: 'Enabled' })]);
    expect(INSPECT_RETENTION_DAYS).toBe(90);
    for (const bucket of [messages, inspections]) {
      expect(bucket['Properties']['VersioningConfiguration']).toBeUndefined();
      expect(bucket['DeletionPolicy']).toBe('Retain');
    }
  });

  test("what cdk destroy leaves is the table, the buckets, the two secrets, the functions' and the APIs' access log groups: all of kinds scripts/teardown.ts removes", () => {
    const retained = [...all].flatMap(([path, template]) => retainedIn(path, template));
    const byType = retained.reduce<Record<string, number>>((counts, r) => ({ ...counts, [r.type]: (counts[r.type] ?? 0) + 1 }), {});
    expect(Object.keys(byType).sort()).toEqual([...REMOVABLE_TYPES].sort());
    expect(byType['AWS::DynamoDB::Table']).toBe(1);
    // Stored messages, inspections, received mail, and the access logs of the three.
    expect(byType['AWS::S3::Bucket']).toBe(4);
    // The platform encryption key (sealed DKIM keys in the table) and the first admin key.
    expect(byType['AWS::SecretsManager::Secret']).toBe(2);
    // One per platform function and the two APIs' access logs (each kept a month); the
    // workflows' and SMTP's are deleted with the stack.
    const functionLogs = resourcesOf(all, 'AWS::Lambda::Function').filter(([, fn]) => fn['Properties']['LoggingConfig']).length;
    expect(byType['AWS::Logs::LogGroup']).toBe(functionLogs + 2);
  });
});

describe('pointed at a restored table (-c tableName, -c tableStreamArn)', () => {
  const restored = { tableName: 'mailplane-us-restored', tableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/mailplane-us-restored/stream/2026-11-28T09:00:00.000' };
  let stack: PlatformStack;
  let all: Map<string, Json>;
  beforeAll(() => {
    stack = synthPlatform('us', { existingTable: restored }).stack;
    all = templates(stack);
  }, 180_000);

  test('makes no table: every function is given the restored one, its policies name it and its index, the event stream reads its stream', () => {
    expect(resourcesOf(all, 'AWS::DynamoDB::Table')).toEqual([]);
    const functions = resourcesOf(all, 'AWS::Lambda::Function').filter(([, fn]) => fn['Properties']['Environment']?.['Variables']?.['TABLE_NAME'] !== undefined);
    expect(functions.length).toBeGreaterThan(50);
    // A literal name, not a reference: it reaches the product stacks' functions as it is.
    expect(new Set(functions.map(([, fn]) => fn['Properties']['Environment']['Variables']['TABLE_NAME']))).toEqual(new Set([restored.tableName]));
    const policies = JSON.stringify(resourcesOf(all, 'AWS::IAM::Policy'));
    expect(policies).toContain(`:table/${restored.tableName}"`);
    expect(policies).toContain(`:table/${restored.tableName}/index/*"`);
    const streams = resourcesOf(all, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m['Properties']['EventSourceArn']).includes('dynamodb'));
    expect(streams.map(([, m]) => m['Properties']['EventSourceArn'])).toEqual([restored.tableStreamArn]);
  });

  test("its alarms watch the restored table, and cdk-nag stays clean", () => {
    const alarms = Template.fromStack(stack.alarms).findResources('AWS::CloudWatch::Alarm');
    const tableDimensions = JSON.stringify(alarms).match(/"Name":"TableName","Value":"[^"]*"/g) ?? [];
    expect(new Set(tableDimensions)).toEqual(new Set([`"Name":"TableName","Value":"${restored.tableName}"`]));
    const findings = new AwsSolutionsChecks().validateScope(stack).violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
    expect(findings).toEqual([]);
  });

  test('context: tableName and tableStreamArn go together, per region or for the one region deployed, and the stream must be that table\'s in that region', () => {
    const context = (values: Record<string, unknown>) => (key: string) => values[key];
    const [us] = platformStackConfigs(context({ regions: 'us', tableName: restored.tableName, tableStreamArn: restored.tableStreamArn }));
    expect(us!.props.existingTable).toEqual(restored);
    const both = platformStackConfigs(context({ tableNameUs: restored.tableName, tableStreamArnUs: restored.tableStreamArn }));
    expect(both.map((c) => c.props.existingTable)).toEqual([restored, undefined]);
    expect(() => platformStackConfigs(context({ tableName: restored.tableName, tableStreamArn: restored.tableStreamArn }))).toThrow(/deploy one region/);
    // Each refusal names the settings as the user passed them.
    expect(() => platformStackConfigs(context({ regions: 'us', tableName: restored.tableName }))).toThrow('Context tableName and tableStreamArn go together');
    expect(() => platformStackConfigs(context({ tableStreamArnEu: restored.tableStreamArn }))).toThrow('Context tableNameEu and tableStreamArnEu go together');
    expect(() => platformStackConfigs(context({ regions: 'us', tableName: 'other', tableStreamArn: restored.tableStreamArn }))).toThrow('Context tableStreamArn is the stream of table mailplane-us-restored in us-east-1, not of other');
    expect(() => platformStackConfigs(context({ regions: 'eu', tableName: restored.tableName, tableStreamArn: restored.tableStreamArn }))).toThrow(/tableStreamArn is the stream .* not of mailplane-us-restored in eu-west-1/);
    expect(() => platformStackConfigs(context({ regions: 'us', tableName: restored.tableName, tableStreamArn: 'stream' }))).toThrow('Context tableStreamArn is not a DynamoDB stream ARN');
  });
});
