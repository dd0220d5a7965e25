import { type AlarmSettings, topicRegion } from './constructs/alarms';
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

function positiveNumber(context: Context, key: string): number | undefined {
  const raw = context(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(value > 0)) throw new Error(`Context "${key}" must be a positive number; got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * The alarms of one region (lib/constructs/alarms.ts): `alarmEmail` subscribes an address to its
 * topic; `alarmTopic<Us|Eu>` names an existing topic of that region instead, and `alarmTopicArn`
 * does so for whichever region the topic is in. `bounceRateAlarmPercent` (4),
 * `complaintRateAlarmPercent` (0.08) and `apiP99AlarmMs` (5000) set the levels.
 */
function alarmSettings(context: Context, suffix: 'Us' | 'Eu', region: string): AlarmSettings {
  const email = text(context, 'alarmEmail');
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`Context "alarmEmail" must be an email address; got "${email}"`);
  const shared = text(context, 'alarmTopicArn');
  const own = text(context, `alarmTopicArn${suffix}`);
  return {
    email,
    topicArn: own ?? (shared && topicRegion(shared) === region ? shared : undefined),
    bounceRatePercent: positiveNumber(context, 'bounceRateAlarmPercent'),
    complaintRatePercent: positiveNumber(context, 'complaintRateAlarmPercent'),
    apiP99LatencyMs: positiveNumber(context, 'apiP99AlarmMs'),
  };
}

const STREAM_ARN = /^arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):\d{12}:table\/([A-Za-z0-9_.-]{3,255})\/stream\/[^/\s]+$/;

/**
 * A restored table to point the stack at (docs/operations.md, "Restore"): `tableName<Us|Eu>` and
 * `tableStreamArn<Us|Eu>`, or `tableName` and `tableStreamArn` when one region is deployed. The
 * stream must be the table's own, in the stack's region.
 */
function existingTable(context: Context, suffix: 'Us' | 'Eu', region: string, regionCount: number) {
  const shared = text(context, 'tableName') ?? text(context, 'tableStreamArn');
  if (shared && regionCount > 1) throw new Error('Context "tableName" and "tableStreamArn" name one region\'s table: deploy one region (-c regions=us) or use tableNameUs/tableNameEu and tableStreamArnUs/tableStreamArnEu');
  // Each setting under the key the user gave it (the region's own wins), so refusals name what was passed.
  const given = (base: string) => [`${base}${suffix}`, base].find((key) => text(context, key) !== undefined);
  const givenName = given('tableName');
  const givenStream = given('tableStreamArn');
  if (!givenName && !givenStream) return undefined;
  const form = (givenName ?? givenStream)!.endsWith(suffix) ? suffix : '';
  const nameKey = givenName ?? `tableName${form}`;
  const streamKey = givenStream ?? `tableStreamArn${form}`;
  const tableName = text(context, nameKey);
  const tableStreamArn = text(context, streamKey);
  if (!tableName || !tableStreamArn) throw new Error(`Context ${nameKey} and ${streamKey} go together: the event stream reads the table's stream (aws dynamodb describe-table --table-name <name> --query Table.LatestStreamArn)`);
  const match = STREAM_ARN.exec(tableStreamArn);
  if (!match) throw new Error(`Context ${streamKey} is not a DynamoDB stream ARN: ${tableStreamArn}`);
  if (match[2] !== tableName || match[1] !== region) throw new Error(`Context ${streamKey} is the stream of table ${match[2]} in ${match[1]}, not of ${tableName} in ${region}`);
  return { tableName, tableStreamArn };
}

/**
 * Reads the app's context (`cdk synth -c key=value` or cdk.json) into the stacks to build:
 * usRegion, euRegion, account, sandboxDomain, regions ("us,eu"), and per region an optional custom
 * domain (customDomainUs + certificateArnUs, customDomainEu + certificateArnEu). SMTP submission is
 * off unless `smtp=true`, which then needs per region smtpHost<Us|Eu> (the name clients connect
 * to), smtpCertificateArn<Us|Eu> (ACM, for 465) and smtpTlsSecretArn<Us|Eu> (Secrets Manager, for
 * STARTTLS on 587). Alarms: see alarmSettings; a restored table: see existingTable.
 */
export function platformStackConfigs(context: Context): PlatformStackConfig[] {
  const account = text(context, 'account');
  const sandboxDomain = text(context, 'sandboxDomain') ?? 'sandbox.localhost';
  const regions = selectedRegions(context);
  const configs = regions.map((platformRegion) => {
    const suffix = platformRegion === 'us' ? 'Us' : 'Eu';
    const domainName = text(context, `customDomain${suffix}`);
    const certificateArn = text(context, `certificateArn${suffix}`);
    if (Boolean(domainName) !== Boolean(certificateArn)) {
      throw new Error(`Context customDomain${suffix} and certificateArn${suffix} go together: give both or neither`);
    }
    const smtp = smtpEnabled(context) ? smtpSettings(context, suffix) : undefined;
    const region = text(context, `${platformRegion}Region`) ?? DEFAULT_AWS_REGIONS[platformRegion];
    return {
      id: `Mailplane-${platformRegion}`,
      props: {
        platformRegion,
        sandboxDomain,
        env: { account, region },
        customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
        smtp,
        alarms: alarmSettings(context, suffix, region),
        existingTable: existingTable(context, suffix, region, regions.length),
        description: `Mailplane: Mailgun-compatible email API (${platformRegion.toUpperCase()} region)`,
      },
    };
  });
  const shared = text(context, 'alarmTopicArn');
  if (shared && !configs.some((c) => c.props.env?.region === topicRegion(shared))) {
    throw new Error(`Context "alarmTopicArn" is a topic in ${topicRegion(shared)}, where no stack of this deployment is (${configs.map((c) => c.props.env?.region).join(', ')}): CloudWatch notifies topics of its own region only`);
  }
  return configs;
}
