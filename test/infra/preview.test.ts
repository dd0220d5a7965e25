import { Template } from 'aws-cdk-lib/assertions';
import { removeSynthOutput, synthPlatform, testApp } from './synth';
import { PlatformStack } from '../../lib/platform-stack';

afterAll(removeSynthOutput);

const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:eoa-AbCdEf';

/** The Lambdas (by description) whose role may read the secret. */
function readersOf(template: Template): string[] {
  const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  const roles = Object.values(json.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties['PolicyDocument']).includes('secretsmanager:GetSecretValue') && JSON.stringify(r.Properties['PolicyDocument']).includes('eoa-AbCdEf'))
    .flatMap((r) => (r.Properties['Roles'] as Array<{ Ref: string }>).map((role) => role.Ref));
  return Object.values(json.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function' && roles.includes(((r.Properties['Role'] as { 'Fn::GetAtt': string[] })['Fn::GetAtt'] ?? [])[0]!))
    .map((r) => String(r.Properties['Description']))
    .sort();
}

describe('the real-client preview tier (Email on Acid)', () => {
  test('is off unless configured: no Lambda names or reads a credential', () => {
    const { stack } = synthPlatform('us');
    expect(stack.platformEnvironment['PREVIEW_REAL_CLIENTS']).toBeUndefined();
    expect(JSON.stringify(Template.fromStack(stack.inspectionApi).toJSON())).not.toContain('secretsmanager:GetSecretValue');
  });

  test('configured, only what makes or finishes real-client tests may read its credentials', () => {
    const { stack, template } = synthPlatform('us', { inbound: { enabled: true, previewInboxDomain: 'preview.example.com' }, previewRealClients: { service: 'emailonacid', credentialsSecretArn: SECRET } });
    expect(stack.platformEnvironment).toMatchObject({ PREVIEW_REAL_CLIENTS: 'emailonacid', EOA_CREDENTIALS_SECRET_ID: SECRET });
    expect(readersOf(Template.fromStack(stack.inspectionApi))).toEqual(['API area: inspect/preview', 'Email previews: renders one client of a test in headless Chromium and stores its screenshots']);
    expect(readersOf(template)).toEqual(['Queue worker: parses received mail, records its events and queues its route actions']);
  });

  test('-c previewRealClients needs the secret that holds the credentials', () => {
    const app = testApp();
    app.node.setContext('previewRealClients', 'emailonacid');
    expect(() => new PlatformStack(app, 'Mailplane-us', { platformRegion: 'us', sandboxDomain: 'sandbox.example.com', env: { region: 'us-east-1' } })).toThrow(/eoaCredentialsSecretArn/);
  });
});
