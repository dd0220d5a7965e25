import { Match } from 'aws-cdk-lib/assertions';
import { removeSynthOutput, type SynthesizedPlatform, synthPlatform } from './synth';

afterAll(removeSynthOutput);

// The web console on AWS: a private bucket that only CloudFront (origin access control) reads,
// the API's CORS naming that distribution's origin and nothing else, and the stack's output.
describe('the console hosting of the us stack', () => {
  let platform: SynthesizedPlatform;
  let bucketId: string;
  let distributionId: string;
  const consoleOrigin = () => ({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] });

  beforeAll(() => {
    platform = synthPlatform('us');
    const json = platform.template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
    distributionId = Object.keys(platform.template.findResources('AWS::CloudFront::Distribution'))[0]!;
    const origin = (json.Resources[distributionId]!.Properties.DistributionConfig as { Origins: Array<{ DomainName: { 'Fn::GetAtt': string[] } }> }).Origins[0]!;
    bucketId = origin.DomainName['Fn::GetAtt'][0]!;
  }, 120_000);

  test('keeps the files in a private bucket that refuses plain HTTP', () => {
    platform.template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    const bucket = platform.template.toJSON().Resources[bucketId];
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
  });

  test('lets CloudFront read the bucket, through origin access control, and no one else', () => {
    const policies = Object.values(platform.template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: bucketId } } }));
    expect(policies).toHaveLength(1);
    const statements = policies[0]!.Properties.PolicyDocument.Statement as Array<{ Effect: string; Principal: unknown; Action: unknown; Condition?: unknown }>;
    const allowed = statements.filter((s) => s.Effect === 'Allow');
    // BucketDeployment writes with its own role's policy; the bucket itself grants reading to CloudFront alone.
    expect(allowed).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Condition: { StringEquals: { 'AWS:SourceArn': expect.objectContaining({ 'Fn::Join': expect.arrayContaining([expect.arrayContaining([{ Ref: distributionId }])]) }) } },
      }),
    ]);
    expect(statements).toEqual(expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]));
    platform.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', { OriginAccessControlConfig: Match.objectLike({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' }) });
    platform.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        Origins: [Match.objectLike({ OriginAccessControlId: Match.anyValue(), S3OriginConfig: { OriginAccessIdentity: '' } })],
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https' }),
      }),
    });
  });

  test("gives the API CORS for the console's origin only, and outputs the console's URL", () => {
    const apis = Object.values(platform.template.findResources('AWS::ApiGatewayV2::Api')).filter((api) => api.Properties.CorsConfiguration);
    expect(apis).toHaveLength(1);
    expect(apis[0]!.Properties.CorsConfiguration).toMatchObject({ AllowOrigins: [consoleOrigin()], AllowHeaders: ['authorization', 'content-type', 'accept', 'x-mailgun-on-behalf-of', 'x-service-account-id', 'x-service-requestor', 'x-service-requestor-client'] });
    expect(apis[0]!.Properties.CorsConfiguration.AllowCredentials).toBeUndefined();
    platform.template.hasOutput('ConsoleUrl', { Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] } });
  });

  test('deploys the build with a page that narrows connect-src to the API, and the config naming it', () => {
    const deployments = Object.values(platform.template.findResources('Custom::CDKBucketDeployment'));
    expect(deployments).toHaveLength(1);
    const deployment = deployments[0]!.Properties as { DestinationBucketName: unknown; SourceMarkers: Array<Record<string, unknown>>; DistributionPaths: string[] };
    expect(deployment.DestinationBucketName).toEqual({ Ref: bucketId });
    expect(deployment.DistributionPaths).toEqual(['/index.html', '/console/config.json']);
    // The API's URL is a token until deploy time: BucketDeployment fills its markers in then.
    expect(deployment.SourceMarkers.filter((m) => Object.keys(m).length).length).toBe(2);
    // The page may also read the inspection bucket, where screenshot and export redirects lead.
    expect(JSON.stringify(deployment.SourceMarkers)).toMatch(/"InspectionResults[0-9A-F]{8}","RegionalDomainName"/);
    platform.template.hasResourceProperties('AWS::S3::Bucket', { CorsConfiguration: { CorsRules: [Match.objectLike({ AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['*'] })] } });
    const headers = Object.values(platform.template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0]!;
    const policy = headers.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy as string;
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
  });
});
