import { platformEnvironment } from '../../lib/constructs/platform-env';
import { AREA_SETTING_CHECKS } from '../../lib/setting-checks';
import { platformEnvSchema } from '../../functions/platform/env';

// A setting whose syntax belongs to an area is a plain string in the handlers' contract and is
// checked by the area's own code in both hosts (local mode's start: test/unit/local/settings.test.ts).
const settings = {
  platformRegion: 'us' as const,
  tableName: 'table',
  encryptionKeySecretId: 'secret',
  sandboxDomain: 'sandbox.example.com',
  trackingCnameTarget: 'api.example.com',
  messagesBucket: 'bucket',
  sesConfigurationSet: 'mailplane-us',
};

it('fails the synth on a spam-trap list the spam-traps area cannot read', () => {
  expect(platformEnvironment({ ...settings, spamTrapList: 'pristine:trap@example.net, typo:gmial.com' }).SPAM_TRAP_LIST).toBe('pristine:trap@example.net, typo:gmial.com');
  expect(() => platformEnvironment({ ...settings, spamTrapList: 'sticky:trap@example.net' })).toThrow(/SPAM_TRAP_LIST: 'sticky:trap@example.net' is not/);
});

it('names only settings of the handlers\' contract', () => {
  for (const name of Object.keys(AREA_SETTING_CHECKS)) expect(platformEnvSchema.shape).toHaveProperty(name);
});
