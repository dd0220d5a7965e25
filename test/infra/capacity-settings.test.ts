import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PlatformStack } from '../../lib/platform-stack';
import { AWS_REGIONS, removeSynthOutput, SANDBOX_DOMAIN, testApp } from './synth';

afterAll(removeSynthOutput);

// The settings docs/capacity.md and docs/operations.md (the reputation guard's levels) name,
// given as context the way `cdk deploy -c` gives them.
const REPUTATION_CONTEXT = {
  reputationWindowHours: '12',
  reputationMinVolume: '500',
  reputationBounceWarningPercent: '1.5',
  reputationBouncePausePercent: '3',
  reputationComplaintWarningPercent: '0.04',
  reputationComplaintPausePercent: '0.08',
};

test('-c apiRateLimit/apiBurstLimit throttle both APIs\' routes; -c monthlyLimitShards, -c eventShards and the reputation guard\'s levels reach every function', () => {
  const app = testApp();
  for (const [key, value] of Object.entries({ apiRateLimit: '1000', apiBurstLimit: '2500', monthlyLimitShards: '8', eventShards: '4', ...REPUTATION_CONTEXT })) app.node.setContext(key, value);
  const stack = new PlatformStack(app, 'Mailplane-us', { platformRegion: 'us', sandboxDomain: SANDBOX_DOMAIN, env: { region: AWS_REGIONS.us } });
  const template = Template.fromStack(stack);
  const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
  expect(stages).toHaveLength(2);
  for (const stage of stages) expect(stage.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2500 });
  const nested = stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
  const functions = [stack, ...nested].flatMap((s) => Object.values(Template.fromStack(s).findResources('AWS::Lambda::Function')));
  const platformFunctions = functions.filter((fn) => fn.Properties.Environment?.Variables?.TABLE_NAME);
  expect(platformFunctions.length).toBeGreaterThan(50);
  for (const fn of platformFunctions) expect(fn.Properties.Environment.Variables.MONTHLY_LIMIT_SHARDS).toBe('8');
  for (const fn of platformFunctions) expect(fn.Properties.Environment.Variables.EVENT_SHARDS).toBe('4');
  for (const fn of platformFunctions) {
    expect(fn.Properties.Environment.Variables).toMatchObject({
      REPUTATION_WINDOW_HOURS: '12',
      REPUTATION_MIN_VOLUME: '500',
      REPUTATION_BOUNCE_WARNING_PERCENT: '1.5',
      REPUTATION_BOUNCE_PAUSE_PERCENT: '3',
      REPUTATION_COMPLAINT_WARNING_PERCENT: '0.04',
      REPUTATION_COMPLAINT_PAUSE_PERCENT: '0.08',
    });
  }

  const bad = testApp();
  bad.node.setContext('apiRateLimit', '1000');
  expect(() => new PlatformStack(bad, 'Mailplane-us', { platformRegion: 'us', sandboxDomain: SANDBOX_DOMAIN, env: { region: AWS_REGIONS.us } })).toThrow(/apiRateLimit" and "apiBurstLimit" go together/);
  // A warning level at or above its pause level fails the synth, as docs/operations.md says.
  const inverted = testApp();
  inverted.node.setContext('reputationBounceWarningPercent', '4');
  expect(() => new PlatformStack(inverted, 'Mailplane-us', { platformRegion: 'us', sandboxDomain: SANDBOX_DOMAIN, env: { region: AWS_REGIONS.us } })).toThrow(
    /REPUTATION_BOUNCE_WARNING_PERCENT \(4\) must be below REPUTATION_BOUNCE_PAUSE_PERCENT \(4\)/,
  );
}, 180_000);
