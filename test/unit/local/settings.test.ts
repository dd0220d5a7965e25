import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLATFORM_SETTINGS } from '../../../functions/platform/env';
import { loadDotEnv, LOCAL_DEFAULTS, PASSED_SETTINGS, readLocalSettings, SettingError } from '../../../lib/local/settings';

// What local mode takes from its environment is derived from the handlers' settings schema: a
// setting added there is passed without a second list to keep.

const WIRED = Object.entries(PLATFORM_SETTINGS)
  .filter(([, entry]) => 'wired' in entry && entry.wired)
  .map(([name]) => name);

it('passes every handler setting the operator sets, and none the host wires itself', () => {
  expect([...PASSED_SETTINGS, ...WIRED].sort()).toEqual(Object.keys(PLATFORM_SETTINGS).sort());
  expect(WIRED).toEqual(expect.arrayContaining(['TABLE_NAME', 'AWS_REGION', 'DYNAMODB_ENDPOINT', 'SEND_QUEUE_URL', 'ENCRYPTION_KEY']));
  // Local defaults are settings too: the operator can override each.
  for (const name of Object.keys(LOCAL_DEFAULTS)) expect(PASSED_SETTINGS).toContain(name);
});

// The eight a hand-kept list had left out, each documented as read by local mode.
const ONCE_DROPPED: Record<string, string> = {
  SANDBOX_RECIPIENTS: 'authorized',
  MONTHLY_LIMIT_CACHE_SECONDS: '0',
  HEALTH_SCORE_MIN_VOLUME: '5',
  ALERT_RETRY_SCALE: '0.5',
  ALERT_DEDUPE_WINDOW_SECONDS: '60',
  ALERTS_EMAIL_DOMAIN: 'alerts.example.com',
  SLACK_API_URL: 'http://127.0.0.1:9/api',
  DMARC_REPORTS_DOMAIN: 'reports.example.com',
};

it.each(Object.entries(ONCE_DROPPED))('hands %s from the environment to the handlers', (name, value) => {
  expect(readLocalSettings({ [name]: value }).env).toEqual({ [name]: value });
});

it("reads local mode's own settings, blank meaning unset", () => {
  expect(readLocalSettings({ PORT: '0', EU_PORT: '', DATA_DIR: '/tmp/x', HOST: '0.0.0.0', SMTP_PORT: '2600', LOCAL_DEDICATED_IPS: '192.0.2.1', DNS_SERVERS: '  ' })).toEqual({
    port: 0,
    euPort: undefined,
    trackingTlsPort: undefined,
    euTrackingTlsPort: undefined,
    smtpPort: 2600,
    smtpsPort: undefined,
    inboundSmtpPort: undefined,
    host: '0.0.0.0',
    dataDir: '/tmp/x',
    bootstrapApiKey: undefined,
    env: { LOCAL_DEDICATED_IPS: '192.0.2.1' },
  });
  expect(readLocalSettings({})).toMatchObject({ port: 3000, host: '127.0.0.1', dataDir: '.data', env: {} });
});

it.each([
  [{ SANDBOX_RECIPIENTS: 'everyone' }, 'SANDBOX_RECIPIENTS is not valid: it takes `authorized` or `any`.'],
  [{ PORT: 'http' }, 'PORT is not valid: it takes an integer from 0 to 65535.'],
  [{ CERTIFICATE_POLL_SECONDS: '0' }, 'CERTIFICATE_POLL_SECONDS is not valid: it takes an integer from 1 to 3600.'],
  [{ ALERT_RETRY_SCALE: '2' }, 'ALERT_RETRY_SCALE is not valid: it takes a number, above 0, at most 1.'],
  [{ SLACK_API_URL: 'slack' }, 'SLACK_API_URL is not valid: it takes a URL.'],
  [{ SPAMD_ADDRESS: 'localhost' }, 'SPAMD_ADDRESS is not valid: it takes `host:port`.'],
  [{ POWERTOOLS_LOG_LEVEL: 'LOUD' }, 'POWERTOOLS_LOG_LEVEL is not valid: it takes `TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`, `CRITICAL` or `SILENT`.'],
  [{ SPAM_TRAP_LIST: 'sticky:trap@example.net' }, expect.stringMatching(/^SPAM_TRAP_LIST is not valid: it takes `type:entry` items, .*: .+\.$/)],
])('stops on an invalid value with one line naming the variable and what it takes: %j', (environment, message) => {
  const error = (() => {
    try {
      readLocalSettings(environment);
    } catch (caught) {
      return caught as Error;
    }
    return undefined;
  })();
  expect(error).toBeInstanceOf(SettingError);
  expect(error!.message).toEqual(message);
  expect(error!.message).not.toContain('\n');
});

it('never repeats the value it refuses (some are secrets)', () => {
  expect(() => readLocalSettings({ POSTMASTER_IMPERSONATE: 'hunter2-not-an-address' })).toThrow(/^POSTMASTER_IMPERSONATE is not valid: it takes an email address\.$/);
});

describe('.env in the working directory', () => {
  let dir: string;
  const saved = { ...process.env };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailplane-dotenv-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('fills in what the environment does not set; the environment wins', () => {
    writeFileSync(join(dir, '.env'), '# comment\nMAILPLANE_TEST_FROM_FILE=file\nMAILPLANE_TEST_BOTH="file"\nexport MAILPLANE_TEST_EXPORTED=yes\n');
    process.env.MAILPLANE_TEST_BOTH = 'environment';
    const read = loadDotEnv(dir);
    expect(process.env).toMatchObject({ MAILPLANE_TEST_FROM_FILE: 'file', MAILPLANE_TEST_BOTH: 'environment', MAILPLANE_TEST_EXPORTED: 'yes' });
    expect([...read].sort()).toEqual(['MAILPLANE_TEST_EXPORTED', 'MAILPLANE_TEST_FROM_FILE']);
  });

  it('says a bad value came from the file', () => {
    writeFileSync(join(dir, '.env'), 'SANDBOX_RECIPIENTS=all\n');
    expect(() => readLocalSettings(process.env, loadDotEnv(dir))).toThrow('SANDBOX_RECIPIENTS (from .env) is not valid: it takes `authorized` or `any`.');
  });

  it('is optional', () => {
    expect(loadDotEnv(dir).size).toBe(0);
  });
});
