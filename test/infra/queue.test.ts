import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { QueueWithDlq } from '../../lib/constructs/queue';
import { logicalIdOf, removeSynthOutput, scratchStack } from './synth';

afterAll(removeSynthOutput);

describe('QueueWithDlq', () => {
  const stack = scratchStack();
  const sends = new QueueWithDlq(stack, 'Sends', { visibilityTimeout: Duration.minutes(3) });
  const hooks = new QueueWithDlq(stack, 'Hooks', { visibilityTimeout: Duration.seconds(45), maxReceiveCount: 8 });
  const template = Template.fromStack(stack);

  test('parks a message in its DLQ after maxReceiveCount deliveries (default 5)', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(stack, sends.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 45,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(stack, hooks.deadLetterQueue), 'Arn'] }, maxReceiveCount: 8 },
    });
  });

  test('the DLQ keeps messages for 14 days', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 24 * 3600, RedrivePolicy: Match.absent() });
  });

  test('both queues are encrypted with SQS-managed keys and refuse plain HTTP', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(4);
    for (const [id, queue] of Object.entries(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  test('passes cdk-nag AwsSolutions with no acknowledgement', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});
