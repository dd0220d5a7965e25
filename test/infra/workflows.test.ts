import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, WORKFLOWS_DIR } from '../../lib/paths';
import { placeholdersOf, Workflow } from '../../lib/constructs/workflows';
import { logicalIdOf, removeSynthOutput, scratchStack } from './synth';

afterAll(removeSynthOutput);

const ASL = JSON.stringify(
  {
    Comment: 'test fixture',
    StartAt: 'Wait',
    States: {
      Wait: { Type: 'Wait', Seconds: 1, Next: 'Notify' },
      Notify: { Type: 'Task', Resource: 'arn:aws:states:::sqs:sendMessage', Parameters: { QueueUrl: '${QueueUrl}', 'MessageBody.$': '$' }, Next: 'Done' },
      Done: { Type: 'Pass', Result: '${Greeting}', End: true },
    },
  },
  null,
  2,
);

describe('Workflow (ASL loader)', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-asl-'));
    fs.writeFileSync(path.join(dir, 'tiny.asl.json'), ASL);
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('reads lib/workflows by default', () => {
    expect(WORKFLOWS_DIR).toBe(path.join(REPO_ROOT, 'lib', 'workflows'));
  });

  test('finds the ${Token} placeholders of a definition', () => {
    expect(placeholdersOf(ASL).sort()).toEqual(['Greeting', 'QueueUrl']);
  });

  test('creates a logged, traced state machine from the file, with its substitutions', () => {
    const stack = scratchStack();
    const workflow = new Workflow(stack, 'Tiny', { name: 'tiny', directory: dir, substitutions: { QueueUrl: 'https://sqs.example/q', Greeting: 'hi' } });
    const template = Template.fromStack(stack);

    const [[, machine]] = Object.entries(template.findResources('AWS::StepFunctions::StateMachine'));
    expect(machine!.Properties).toMatchObject({
      DefinitionString: ASL,
      DefinitionSubstitutions: { QueueUrl: 'https://sqs.example/q', Greeting: 'hi' },
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: {
        Level: 'ALL',
        IncludeExecutionData: false,
        Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [logicalIdOf(stack, workflow.logGroup), 'Arn'] } } }],
      },
    });
    // Step Functions checks the log-delivery permission when it creates the state machine.
    const observability = Object.entries(template.findResources('AWS::IAM::Policy')).find(([, p]) =>
      JSON.stringify(p.Properties.PolicyDocument).includes('logs:CreateLogDelivery'),
    )!;
    expect(machine!.DependsOn).toContain(observability[0]);
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/vendedlogs/states/Scratch-tiny' });

    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  test('leaves DefinitionSubstitutions out when there are none (CloudFormation rejects an empty map)', () => {
    fs.writeFileSync(path.join(dir, 'plain.asl.json'), JSON.stringify({ StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } }));
    const stack = scratchStack();
    new Workflow(stack, 'Plain', { name: 'plain', directory: dir });
    Template.fromStack(stack).hasResourceProperties('AWS::StepFunctions::StateMachine', { DefinitionSubstitutions: Match.absent() });
  });

  test('refuses a definition whose placeholders lack a substitution', () => {
    expect(() => new Workflow(scratchStack(), 'Tiny', { name: 'tiny', directory: dir, substitutions: { QueueUrl: 'x' } })).toThrow(
      /no substitution for \$\{Greeting\}/,
    );
  });

  test('refuses a definition that does not exist', () => {
    expect(() => new Workflow(scratchStack(), 'Nope', { name: 'nope', directory: dir })).toThrow(/not found/);
  });
});
