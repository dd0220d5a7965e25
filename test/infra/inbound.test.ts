import { Match } from 'aws-cdk-lib/assertions';
import { logicalIdOf, removeSynthOutput, synthPlatform } from './synth';

afterAll(removeSynthOutput);

describe('SES receiving (lib/constructs/inbound.ts)', () => {
  const { stack, template } = synthPlatform('us');
  const inbound = stack.inbound!;

  test('the stack makes its own receipt rule set, and says how to make it active', () => {
    template.resourceCountIs('AWS::SES::ReceiptRuleSet', 1);
    expect(Object.keys(template.findOutputs('*')).some((id) => id.includes('ActivateReceiving'))).toBe(true);
  });

  test('its rule scans, stores the raw message under inbound/ and notifies the topic', () => {
    template.hasResourceProperties('AWS::SES::ReceiptRule', {
      Rule: Match.objectLike({
        Enabled: true,
        ScanEnabled: true,
        Actions: [{ S3Action: { BucketName: { Ref: logicalIdOf(stack, inbound.bucket) }, ObjectKeyPrefix: 'inbound/', TopicArn: { Ref: logicalIdOf(stack, inbound.topic) } } }],
      }),
    });
  });

  test('the bucket lets SES put objects for this account only', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logicalIdOf(stack, inbound.bucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 's3:PutObject', Principal: { Service: 'ses.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } }),
        ]),
      },
    });
  });

  test('SES may publish to the topic for this rule only', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: logicalIdOf(stack, inbound.topic) }],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'sns:Publish', Principal: { Service: 'ses.amazonaws.com' }, Condition: Match.objectLike({ ArnLike: Match.anyValue() }) })]) },
    });
  });

  test('the topic feeds the inbound queue, which (like the action queue) has a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'sqs', Endpoint: { 'Fn::GetAtt': [logicalIdOf(stack, inbound.queue.queue), 'Arn'] } });
    for (const queue of [inbound.queue, inbound.actionQueue]) {
      template.hasResourceProperties('AWS::SQS::Queue', {
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(stack, queue.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
      });
    }
  });

  test('two workers consume them with partial batch failures, and the API knows the action queue', () => {
    for (const queue of [inbound.queue, inbound.actionQueue]) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [logicalIdOf(stack, queue.queue), 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
    expect(stack.platformEnvironment['INBOUND_ACTION_QUEUE_URL']).toBeDefined();
  });
});

describe('receiving settings', () => {
  test('-c inboundRuleSet adds the rule to an existing set instead of making one', () => {
    const { template } = synthPlatform('eu', { inbound: { existingRuleSetName: 'my-active-set' } });
    template.resourceCountIs('AWS::SES::ReceiptRuleSet', 0);
    template.hasResourceProperties('AWS::SES::ReceiptRule', { RuleSetName: 'my-active-set' });
  });

  test('off where asked (or where SES does not receive mail)', () => {
    const { stack, template } = synthPlatform('us', { inbound: { enabled: false } });
    expect(stack.inbound).toBeUndefined();
    template.resourceCountIs('AWS::SES::ReceiptRule', 0);
  });

  test('-c previewInboxDomain: the receive worker turns that domain\'s mail into preview tests, and may start only the preview workflow', () => {
    const { stack, template } = synthPlatform('us', { inbound: { previewInboxDomain: 'preview.example.com' } });
    expect(stack.platformEnvironment['PREVIEW_INBOX_DOMAIN']).toBe('preview.example.com');
    const workers = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Queue worker: parses received mail') } }));
    expect(workers).toHaveLength(1);
    expect(workers[0]!.Properties.Environment.Variables.PREVIEW_STATE_MACHINE_ARN).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^InspectionApi/), expect.stringMatching(/PreviewWorkflow/)] });
    const starts = JSON.stringify(template.findResources('AWS::IAM::Policy', { Properties: { PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'states:StartExecution' })]) } } }));
    expect(starts).toContain('PreviewWorkflow');
    // Without the setting, nothing of previews reaches the inbound worker.
    const plain = synthPlatform('us').template;
    const plainWorker = Object.values(plain.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Queue worker: parses received mail') } }))[0]!;
    expect(plainWorker.Properties.Environment.Variables.PREVIEW_STATE_MACHINE_ARN).toBeUndefined();
    expect(plainWorker.Properties.Environment.Variables.PREVIEW_INBOX_DOMAIN).toBeUndefined();
  });
});
