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

/** `-c smtp=true` (a string) or `"smtp": true` in cdk.json. */
function smtpEnabled(context: Context): boolean {
  const raw = context('smtp');
  if (raw === undefined || raw === null || raw === '' || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new Error(`Context "smtp" must be true or false; got ${JSON.stringify(raw)}`);
}

function smtpSettings(context: Context, suffix: 'Us' | 'Eu') {
  const hostname = text(context, `smtpHost${suffix}`);
  const certificateArn = text(context, `smtpCertificateArn${suffix}`);
  const tlsSecretArn = text(context, `smtpTlsSecretArn${suffix}`);
  if (!hostname || !certificateArn || !tlsSecretArn) {
    throw new Error(`Context smtp=true needs smtpHost${suffix}, smtpCertificateArn${suffix} (ACM, for 465) and smtpTlsSecretArn${suffix} (Secrets Manager, for STARTTLS on 587)`);
  }
  return { hostname, certificateArn, tlsSecretArn };
}

/**
 * Reads the app's context (`cdk synth -c key=value` or cdk.json) into the stacks to build:
 * usRegion, euRegion, account, sandboxDomain, regions ("us,eu"), and per region an optional custom
 * domain (customDomainUs + certificateArnUs, customDomainEu + certificateArnEu). SMTP submission is
 * off unless `smtp=true`, which then needs per region smtpHost<Us|Eu> (the name clients connect
 * to), smtpCertificateArn<Us|Eu> (ACM, for 465) and smtpTlsSecretArn<Us|Eu> (Secrets Manager, for
 * STARTTLS on 587).
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
    const smtp = smtpEnabled(context) ? smtpSettings(context, suffix) : undefined;
    return {
      id: `Mailplane-${platformRegion}`,
      props: {
        platformRegion,
        sandboxDomain,
        env: { account, region: text(context, `${platformRegion}Region`) ?? DEFAULT_AWS_REGIONS[platformRegion] },
        customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
        smtp,
        description: `Mailplane: Mailgun-compatible email API (${platformRegion.toUpperCase()} region)`,
      },
    };
  });
}
