import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { queueWorkers, visibilityTimeoutOf, type QueueWorker } from '../../functions/workers';
import { workflows, type WorkflowRow } from '../../functions/workflows';
import { REPO_ROOT, WORKFLOWS_DIR } from '../../lib/paths';
import { createQueueWorkers, LOCAL_MAX_CONCURRENCY } from '../../lib/local/queue-workers';
import { createWorkflows } from '../../lib/local/workflows';
import type { LocalWorkflow } from '../../lib/local/workflow-runner';
import type { QueueOptions } from '../../lib/local/sqs-standin';
import { removeSynthOutput, synthPlatform } from './synth';

// The worker table (functions/workers.ts) is what both hosts build: CDK's queues, Lambdas and
// event sources, and local mode's queues in its SQS stand-in, row for row; so is the workflow
// table (functions/workflows.ts): CDK's state machines and local mode's.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const rows: readonly QueueWorker[] = queueWorkers;
const workflowRows: readonly WorkflowRow[] = workflows;
const placeholdersOf = (row: WorkflowRow) => [...Object.keys(row.tasks), ...Object.keys(row.queues ?? {})].sort();

afterAll(removeSynthOutput);

describe('on AWS', () => {
  const { stack } = synthPlatform('us');
  const stacks: Stack[] = [stack, ...stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))];
  const templates = new Map(stacks.map((s) => [s, Template.fromStack(s).toJSON() as Json]));

  /** The queue (stack and logical id) an event source's ARN names, following a nested stack's parameter to its parent. */
  function queueOf(s: Stack, arn: Json): { stack: Stack; id: string } {
    if (arn['Fn::GetAtt']) return { stack: s, id: arn['Fn::GetAtt'][0] };
    const nested = s as NestedStack;
    const parent = nested.nestedStackParent!;
    const given = templates.get(parent)!['Resources'][parent.getLogicalId(nested.nestedStackResource!)]['Properties']['Parameters'][arn['Ref']];
    return queueOf(parent, given);
  }

  const sqsMappings = [...templates].flatMap(([s, t]) =>
    Object.values(t['Resources'] as Record<string, Json>)
      .filter((r) => r['Type'] === 'AWS::Lambda::EventSourceMapping' && !r['Properties']['StartingPosition'])
      .map((mapping) => {
        const fn = t['Resources'][mapping['Properties']['FunctionName']['Ref']]['Properties'];
        const queue = queueOf(s, mapping['Properties']['EventSourceArn']);
        return { mapping: mapping['Properties'], fn, queue: { ...queue, props: templates.get(queue.stack)!['Resources'][queue.id]['Properties'] } };
      }),
  );

  test('every SQS-fed Lambda is a row of the table, and every row has one', () => {
    expect(sqsMappings.map((m) => m.fn['Description']).sort()).toEqual(rows.map((row) => row.description).sort());
  });

  test.each(rows.map((row) => [row.queue, row] as const))('%s: its Lambda, event source and queue are as the row says', (_, row) => {
    const { mapping, fn, queue } = sqsMappings.find((m) => m.fn['Description'] === row.description)!;
    expect(fn['Timeout']).toBe(row.timeoutSeconds);
    expect(fn['MemorySize']).toBe(row.memorySizeMb ?? 512);
    expect(mapping['BatchSize']).toBe(row.batchSize);
    expect(mapping['FunctionResponseTypes']).toEqual(['ReportBatchItemFailures']);
    expect(mapping['ScalingConfig']?.['MaximumConcurrency']).toBe(row.maxConcurrency);
    expect(queue.props['VisibilityTimeout']).toBe(visibilityTimeoutOf(row.timeoutSeconds));
    const sourceRow = rows.find((r) => r.deadLetterQueue === row.queue);
    if (sourceRow) {
      // A dead-letter consumer reads the dead-letter queue of the row that names it, which has none of its own.
      const source = sqsMappings.find((m) => m.fn['Description'] === sourceRow.description)!;
      expect(source.queue.props['RedrivePolicy']['deadLetterTargetArn']).toEqual({ 'Fn::GetAtt': [queue.id, 'Arn'] });
      expect(queue.props['RedrivePolicy']).toBeUndefined();
    } else {
      // Every queue parks what fails maxReceiveCount times in its dead-letter queue.
      expect(queue.props['RedrivePolicy']['maxReceiveCount']).toBe(row.maxReceiveCount);
    }
  });

  test("every state machine is a row of the workflow table, its definition the row's file, its substitutions the row's placeholders", () => {
    const machines = [...templates.values()].flatMap((t) => Object.values(t['Resources'] as Record<string, Json>).filter((r) => r['Type'] === 'AWS::StepFunctions::StateMachine'));
    expect(machines).toHaveLength(workflowRows.length);
    for (const row of workflowRows) {
      const definition = readFileSync(join(WORKFLOWS_DIR, `${row.name}.asl.json`), 'utf8');
      const found = machines.filter((m) => m['Properties']['DefinitionString'] === definition);
      expect(found).toHaveLength(1);
      expect(Object.keys(found[0]!['Properties']['DefinitionSubstitutions']).sort()).toEqual(placeholdersOf(row));
    }
  });
});

describe('in local mode', () => {
  test("the workflow table's state machines, every placeholder filled, tasks invoking the row's handlers", () => {
    const made: LocalWorkflow[] = [];
    const loaded: string[] = [];
    const settings = createWorkflows(
      { createStateMachine: (workflow) => (made.push(workflow), `arn:local:${workflow.name}`) },
      { awsRegion: 'us-east-1', queueUrl: (queue) => `local/${queue}`, send: async () => undefined, load: (entry) => (loaded.push(entry), async () => undefined) },
    );
    expect(made.map((w) => w.name)).toEqual(workflowRows.map((row) => row.name));
    expect(settings).toEqual(Object.fromEntries(workflowRows.map((row) => [row.arnSetting, `arn:local:${row.name}`])));
    expect(loaded.sort()).toEqual(workflowRows.flatMap((row) => Object.values(row.tasks)).sort());
    for (const entry of loaded) expect(existsSync(join(REPO_ROOT, 'functions', `${entry}.ts`))).toBe(true);
    expect(JSON.stringify(made.map((w) => w.definition))).not.toMatch(/\$\{[A-Za-z0-9_]+\}/);
  });

  const created = new Map<string, { options: QueueOptions; entry?: string }>();
  const load = (entry: string) => Object.assign(async () => undefined, { entry });
  createQueueWorkers({ createQueue: (name, options, worker) => (created.set(name, { options, entry: (worker as { entry?: string } | undefined)?.entry }), `local/${name}`) }, { load });

  test("every row's queue is made, with its worker and the dead-letter queues the rows name; nothing else", () => {
    const deadLetters = rows.flatMap((row) => (row.deadLetterQueue && !rows.some((r) => r.queue === row.deadLetterQueue) ? [row.deadLetterQueue] : []));
    expect([...created.keys()].sort()).toEqual([...rows.map((row) => row.queue), ...deadLetters].sort());
    for (const name of deadLetters) expect(created.get(name)!.entry).toBeUndefined();
  });

  test.each(rows.map((row) => [row.queue, row] as const))('%s: on the clocks, receive count, batch size and bound the row gives AWS', (_, row) => {
    const { options, entry } = created.get(row.queue)!;
    expect(entry).toBe(row.entry);
    expect(existsSync(join(REPO_ROOT, 'functions', `${row.entry}.ts`))).toBe(true);
    expect(options).toEqual({
      visibilityTimeoutSeconds: visibilityTimeoutOf(row.timeoutSeconds),
      ...(row.maxReceiveCount !== undefined ? { maxReceiveCount: row.maxReceiveCount } : {}),
      ...(row.deadLetterQueue ? { deadLetterQueue: row.deadLetterQueue } : {}),
      functionTimeoutSeconds: row.timeoutSeconds,
      batchSize: row.batchSize,
      // One machine: AWS's bound, or fewer.
      maxConcurrency: Math.min(row.maxConcurrency ?? Infinity, LOCAL_MAX_CONCURRENCY),
    });
  });
});
