import { Match, type Template } from 'aws-cdk-lib/assertions';
import { createTableInput } from '../../functions/data/table';
import { platformEnvSchema } from '../../functions/platform/env';
import { areas, routes } from '../../functions/routes';
import { SES_IDENTITY_ACTIONS } from '../../lib/constructs/area-permissions';
import type { PlatformRegion } from '../../lib/constructs/platform-env';
import type { PlatformStack } from '../../lib/platform-stack';
import { AWS_REGIONS, logicalIdOf, removeSynthOutput, SANDBOX_DOMAIN, synthPlatform } from './synth';

afterAll(removeSynthOutput);

// Template JSON is untyped by nature; the assertions below say what they expect of it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[]; DeletionPolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

function only(template: Template, type: string, props: Record<string, unknown> = {}): [string, Resource] {
  const found = Object.entries(template.findResources(type, props.Properties ? props : { Properties: props }));
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

/** Every Allow statement of the policies attached to a function's role, and the role itself. */
function permissionsOf(template: Template, functionLogicalId: string) {
  const fn = template.toJSON().Resources[functionLogicalId] as Resource;
  const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
  const role = template.toJSON().Resources[roleId] as Resource;
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  const statements = policies
    .filter((p) => (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  const actions = (s: Statement) => [s.Action].flat();
  // Log writing and tracing are every function's baseline; the rest is what the area may do.
  const business = statements.filter((s) => !actions(s).every((a) => a.startsWith('logs:') || a.startsWith('xray:')));
  return { role, statements, business, actions: business.flatMap(actions) };
}

function functionIdByDescription(template: Template, description: string): string {
  return only(template, 'AWS::Lambda::Function', { Description: description })[0];
}

describe.each<PlatformRegion>(['us', 'eu'])('PlatformStack (%s)', (region) => {
  let stack: PlatformStack;
  let template: Template;
  let ids: { table: string; encryptionKey: string; adminKey: string; api: string; authorizer: string; bootstrap: string };

  beforeAll(() => {
    ({ stack, template } = synthPlatform(region));
    ids = {
      table: logicalIdOf(stack, stack.data.table),
      encryptionKey: logicalIdOf(stack, stack.data.encryptionKey),
      adminKey: logicalIdOf(stack, stack.bootstrap.adminKeySecret),
      api: logicalIdOf(stack, stack.api.httpApi),
      authorizer: logicalIdOf(stack, stack.api.authorizerFunction.fn),
      bootstrap: functionIdByDescription(template, 'Custom resource: primary account and first admin key'),
    };
  }, 120_000);

  test('the single table has the keys and index the local host creates', () => {
    const [, table] = only(template, 'AWS::DynamoDB::Table');
    const local = createTableInput('any');
    expect(table.Properties.KeySchema).toEqual(local.KeySchema);
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(new Set(table.Properties.AttributeDefinitions)).toEqual(new Set(local.AttributeDefinitions));
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table.DeletionPolicy).toBe('Retain');
  });

  test('the message bucket is private, encrypted, TLS-only, logged and expires objects', () => {
    const [bucketId, bucket] = only(template, 'AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 30 })]) },
    });
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 30, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: expect.any(String) } },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  test('the encryption key secret is generated (64 chars, no punctuation) and retained', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: Match.objectLike({ GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } }),
      DeletionPolicy: 'Retain',
    });
  });

  test('one Lambda per area, nodejs22.x on arm64, traced, with its own log group', () => {
    for (const area of areas) {
      const id = functionIdByDescription(template, `API area: ${area}`);
      expect(template.toJSON().Resources[id].Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        Timeout: 29,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
    }
    // The areas, the authorizer and the bootstrap handler; the provider framework runs its own runtime.
    expect(Object.keys(template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } }))).toHaveLength(areas.length + 2);
  });

  test('every row of the route table is one route, on its area Lambda, behind the authorizer', () => {
    const [authorizerId] = only(template, 'AWS::ApiGatewayV2::Authorizer');
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const integrationOf = (area: string) =>
      Object.entries(integrations).find(
        ([, i]) => i.Properties.IntegrationUri['Fn::GetAtt'][0] === functionIdByDescription(template, `API area: ${area}`),
      )![0];
    for (const route of routes) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        ApiId: { Ref: ids.api },
        RouteKey: `${route.method} ${route.path}`,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationOf(route.area) }]] },
      });
    }
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Route'))).toHaveLength(routes.length);
    for (const integration of Object.values(integrations)) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  test('the authorizer is a REQUEST authorizer with simple responses cached on Authorization', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      IdentitySource: ['$request.header.Authorization'],
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: 60,
      AuthorizerUri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [ids.authorizer, 'Arn'] }])] },
    });
  });

  test('the $default stage deploys automatically, logs access and throttles', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: ids.api },
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, Format: Match.stringLikeRegexp('\\$context\\.requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
  });

  test('every platform Lambda gets the env contract of functions/platform/env.ts', () => {
    const expected = {
      PLATFORM_REGION: region,
      TABLE_NAME: { Ref: ids.table },
      ENCRYPTION_KEY_SECRET_ID: { Ref: ids.encryptionKey },
      SANDBOX_DOMAIN,
      TRACKING_CNAME_TARGET: { 'Fn::Join': ['', [{ Ref: ids.api }, `.execute-api.${AWS_REGIONS[region]}.`, { Ref: 'AWS::URLSuffix' }]] },
      LOG_LEVEL: 'INFO',
      POWERTOOLS_SERVICE_NAME: 'mailplane',
      NODE_OPTIONS: '--enable-source-maps',
    };
    const functionIds = [ids.authorizer, ids.bootstrap, ...areas.map((a) => functionIdByDescription(template, `API area: ${a}`))];
    for (const id of functionIds) {
      const variables = template.toJSON().Resources[id].Properties.Environment.Variables;
      expect(variables).toEqual(expected);
    }
    const contractKeys = Object.keys(platformEnvSchema.shape);
    expect(Object.keys(expected).filter((k) => !contractKeys.includes(k))).toEqual(['POWERTOOLS_SERVICE_NAME', 'NODE_OPTIONS']);
  });

  test('no role carries a managed policy or a wildcard action', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      for (const s of policy.Properties.PolicyDocument.Statement as Statement[]) {
        expect([s.Action].flat().filter((a) => a.includes('*'))).toEqual([]);
      }
    }
  });

  test('the authorizer may only GetItem on the table', () => {
    const { business } = permissionsOf(template, ids.authorizer);
    expect(business).toEqual([{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] } }]);
  });

  test('the domains area manages SES identities of its own account and region, and reads the encryption key', () => {
    const { business, actions } = permissionsOf(template, functionIdByDescription(template, 'API area: domains'));
    expect(business).toContainEqual({
      Effect: 'Allow',
      Action: [...SES_IDENTITY_ACTIONS].sort(),
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':identity/*']] },
    });
    expect(business).toContainEqual({
      Effect: 'Allow',
      Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
      Resource: { Ref: ids.encryptionKey },
    });
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:PutItem']));
    expect(actions.filter((a) => a.startsWith('ses:')).sort()).toEqual([...SES_IDENTITY_ACTIONS].sort());
  });

  test('the keys area has table read/write and nothing of SES or Secrets Manager', () => {
    const { actions } = permissionsOf(template, functionIdByDescription(template, 'API area: keys'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
    expect(actions.filter((a) => !a.startsWith('dynamodb:'))).toEqual([]);
  });

  test('the bootstrap custom resource writes the admin key to its secret', () => {
    const [, resource] = only(template, 'Custom::PrimaryAccount');
    expect(resource.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [expect.any(String), 'Arn'] },
      AdminKeySecretId: { Ref: ids.adminKey },
    });
    const providerId: string = resource.Properties.ServiceToken['Fn::GetAtt'][0];
    expect(template.toJSON().Resources[providerId].Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN).toEqual({
      'Fn::GetAtt': [ids.bootstrap, 'Arn'],
    });
    const { business } = permissionsOf(template, ids.bootstrap);
    expect(business).toContainEqual(
      expect.objectContaining({ Action: expect.arrayContaining(['secretsmanager:PutSecretValue']), Resource: { Ref: ids.adminKey } }),
    );
    expect(business.flatMap((s) => [s.Action].flat()).filter((a) => a.startsWith('secretsmanager:Get'))).toEqual([]);
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: Match.objectLike({ GenerateSecretString: Match.anyValue() }),
      DeletionPolicy: 'Retain',
    });
  });

  test('outputs the API URL and the admin key secret name', () => {
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [ids.api, 'ApiEndpoint'] } });
    const output = template.toJSON().Outputs.AdminKeySecretName;
    expect(JSON.stringify(output.Value)).toContain(JSON.stringify({ Ref: ids.adminKey }));
  });
});

describe('PlatformStack with a custom domain', () => {
  let template: Template;
  let stack: PlatformStack;
  const customDomain = { domainName: 'api.eu.mail.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000' };

  beforeAll(() => {
    ({ stack, template } = synthPlatform('eu', { customDomain }));
  }, 120_000);

  test('maps the domain to the $default stage and uses it for the URL and tracking CNAMEs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: customDomain.domainName,
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: customDomain.certificateArn })],
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      ApiId: { Ref: logicalIdOf(stack, stack.api.httpApi) },
      Stage: '$default',
    });
    template.hasOutput('ApiUrl', { Value: `https://${customDomain.domainName}` });
    const variables = template.toJSON().Resources[logicalIdOf(stack, stack.api.authorizerFunction.fn)].Properties.Environment.Variables;
    expect(variables.TRACKING_CNAME_TARGET).toBe(customDomain.domainName);
  });
});
