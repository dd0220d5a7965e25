import {
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  CreateDedicatedIpPoolCommand,
  GetDedicatedIpsCommand,
  PutDedicatedIpInPoolCommand,
  PutDedicatedIpWarmupAttributesCommand,
  type DedicatedIp,
} from '@aws-sdk/client-sesv2';
import { sesClient } from '../platform/aws-clients';
import { env } from '../platform/env';

/**
 * How Mailgun's IPs and pools map onto SES. SES picks which address of a dedicated pool sends each
 * message and never reports which one it was, so each dedicated IP gets an SES pool of its own
 * (and a configuration set pair naming it, opportunistic and required TLS): the platform chooses the
 * address per message among the domain's IPs or its DIPP's (functions/sending-ips/sending-route.ts),
 * and so knows it exactly for `envelope.sending-ip` and can hold a warming address to its stage.
 * A DIPP is then the platform's own record of which addresses a domain may use.
 */

/** The SES events each configuration set publishes: the stack's NOTIFIED_EVENTS (lib/constructs/sending.ts) in SES v2's spelling. */
const NOTIFIED_EVENT_TYPES = ['DELIVERY', 'BOUNCE', 'COMPLAINT', 'REJECT', 'DELIVERY_DELAY'] as const;
const EVENT_DESTINATION = 'notifications-queue';

const dashed = (ip: string) => ip.replace(/[.:]/g, '-');

/** The configuration sets that send from one dedicated IP; they start with the stack's set names, which the IAM policies match. */
export function ipConfigurationSets(ip: string): { optional: string; requireTls: string } {
  const { SES_CONFIGURATION_SET: base, SES_TLS_CONFIGURATION_SET: tls } = env();
  if (!base || !tls) throw new Error('SES_CONFIGURATION_SET and SES_TLS_CONFIGURATION_SET must be configured to send from dedicated IPs');
  return { optional: `${base}-ip-${dashed(ip)}`, requireTls: `${tls}-ip-${dashed(ip)}` };
}

/** The SES pool that holds only this address. */
const ipSesPool = (ip: string) => `${env().SES_CONFIGURATION_SET ?? 'mailplane'}-ip-${dashed(ip)}`;

/** Every dedicated IP SES leases to this AWS account in this region. */
export async function sesDedicatedIps(): Promise<DedicatedIp[]> {
  const out: DedicatedIp[] = [];
  let token: string | undefined;
  do {
    const page = await sesClient().send(new GetDedicatedIpsCommand({ NextToken: token, PageSize: 100 }));
    out.push(...(page.DedicatedIps ?? []));
    token = page.NextToken;
  } while (token);
  return out;
}

/** SES answers a second create of the same name with AlreadyExistsException: the resource is there, which is all that is wanted. */
async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if ((error as { name?: string }).name !== 'AlreadyExistsException') throw error;
  }
}

/**
 * Makes the SES side of one dedicated IP: its own pool with the address in it, and the two
 * configuration sets sending from that pool, publishing to the region's events topic. Idempotent,
 * so a partial run is finished by the next.
 */
export async function provisionIp(ip: DedicatedIp): Promise<void> {
  const address = ip.Ip!;
  const pool = ipSesPool(address);
  const ses = sesClient();
  await ensure(() => ses.send(new CreateDedicatedIpPoolCommand({ PoolName: pool, ScalingMode: 'STANDARD' })));
  if (ip.PoolName !== pool) await ses.send(new PutDedicatedIpInPoolCommand({ Ip: address, DestinationPoolName: pool }));
  const topic = env().SES_EVENTS_TOPIC_ARN;
  if (!topic) throw new Error('SES_EVENTS_TOPIC_ARN must be configured to send from dedicated IPs');
  const sets = ipConfigurationSets(address);
  for (const [name, tlsPolicy] of [[sets.optional, 'OPTIONAL'], [sets.requireTls, 'REQUIRE']] as const) {
    await ensure(() => ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: name, DeliveryOptions: { SendingPoolName: pool, TlsPolicy: tlsPolicy } })));
    await ensure(() =>
      ses.send(
        new CreateConfigurationSetEventDestinationCommand({
          ConfigurationSetName: name,
          EventDestinationName: EVENT_DESTINATION,
          EventDestination: { Enabled: true, MatchingEventTypes: [...NOTIFIED_EVENT_TYPES], SnsDestination: { TopicArn: topic } },
        }),
      ),
    );
  }
}

/** SES's own warm-up of an address: the share of its traffic SES lets it take (100: warmed). */
export async function setSesWarmup(ip: string, percentage: number): Promise<void> {
  await sesClient().send(new PutDedicatedIpWarmupAttributesCommand({ Ip: ip, WarmupPercentage: percentage }));
}
