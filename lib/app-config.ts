import type { PlatformStackProps } from './platform-stack';
import { DEFAULT_AWS_REGIONS, type PlatformRegion } from './regions';

/** One stack to synthesize: its id and props. */
export interface PlatformStackConfig {
  id: string;
  props: PlatformStackProps;
}

type Context = (key: string) => unknown;

const PLATFORM_REGIONS: readonly PlatformRegion[] = ['us', 'eu'];

function text(context: Context, key: string): string | undefined {
  const value = context(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context "${key}" must be a string`);
  return value.trim() || undefined;
}

function selectedRegions(context: Context): PlatformRegion[] {
  const raw = text(context, 'regions');
  if (!raw) return [...PLATFORM_REGIONS];
  const names = raw.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((name) => !PLATFORM_REGIONS.includes(name as PlatformRegion));
  if (unknown.length || !names.length) throw new Error(`Context "regions" must list some of ${PLATFORM_REGIONS.join(', ')}; got "${raw}"`);
  return PLATFORM_REGIONS.filter((region) => names.includes(region));
}

/**
 * Reads the app's context (`cdk synth -c key=value` or cdk.json) into the stacks to build:
 * usRegion, euRegion, account, sandboxDomain, regions ("us,eu"), and per region an optional custom
 * domain (customDomainUs + certificateArnUs, customDomainEu + certificateArnEu).
 */
export function platformStackConfigs(context: Context): PlatformStackConfig[] {
  const account = text(context, 'account');
  const sandboxDomain = text(context, 'sandboxDomain') ?? 'sandbox.localhost';
  return selectedRegions(context).map((platformRegion) => {
    const suffix = platformRegion === 'us' ? 'Us' : 'Eu';
    const domainName = text(context, `customDomain${suffix}`);
    const certificateArn = text(context, `certificateArn${suffix}`);
    if (Boolean(domainName) !== Boolean(certificateArn)) {
      throw new Error(`Context customDomain${suffix} and certificateArn${suffix} go together: give both or neither`);
    }
    return {
      id: `Mailplane-${platformRegion}`,
      props: {
        platformRegion,
        sandboxDomain,
        env: { account, region: text(context, `${platformRegion}Region`) ?? DEFAULT_AWS_REGIONS[platformRegion] },
        customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
        description: `Mailplane: Mailgun-compatible email API (${platformRegion.toUpperCase()} region)`,
      },
    };
  });
}
