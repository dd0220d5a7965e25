import { Aws, type CfnElement, Names, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as ses from 'aws-cdk-lib/aws-ses';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { AUTH_FAILURES_PREFIX } from '../../functions/platform/auth-throttle';
import { TRACKING_HOST_TAG } from '../../functions/certificates/acm';

/** What an area's Lambda (or a queue worker) may be granted access to. */
export interface AreaResources {
  table: dynamodb.ITable;
  encryptionKey: secretsmanager.ISecret;
  /** Stored MIME of accepted messages. */
  messagesBucket: s3.Bucket;
  /** Accepted messages waiting for the send worker. */
  sendQueue: sqs.IQueue;
  /** The SES configuration set every send names (its events feed the notifications queue). */
  configurationSet: ses.IConfigurationSet;
  /** Its twin whose TLS policy is Require, named by sends that must go over TLS. */
  requireTlsConfigurationSet: ses.IConfigurationSet;
  /** Where SES publishes sending events: the configuration sets made per dedicated IP publish there too. */
  eventsTopic: sns.ITopic;
  /** Scheduled delivery: one execution per message sent with o:deliverytime (lib/constructs/scheduling.ts). */
  scheduleStateMachine: sfn.IStateMachine;
  /** Webhook deliveries: filled by fan-out (the event stream), drained by the webhook worker (lib/constructs/webhooks.ts). */
  webhookQueue: sqs.IQueue;
  /** Mailing lists: post expansion pages and bulk uploads (lib/constructs/lists.ts). */
  listQueue: sqs.IQueue;
  /** Tracking certificates: one execution per job, and per release (lib/constructs/tracking-certificates.ts). */
  certificateStateMachine: sfn.IStateMachine;
  /** Route actions of received mail (lib/constructs/inbound.ts), where SES receives mail. */
  inboundActionQueue?: sqs.IQueue;
  /** Inspection tests' inputs, results and images (lib/constructs/inspection.ts). */
  inspectBucket: s3.Bucket;
  /** One message per inspection run, drained by the inspection worker. */
  inspectQueue: sqs.IQueue;
  /** The secret holding the Google service account key of the Postmaster fetch (`-c postmasterCredentialsSecretArn`), when given. */
  postmasterCredentialsSecretArn?: string;
}

/** The grantee and the construct whose subtree the acknowledgements of its findings apply to. */
export interface AreaGrantee {
  role: iam.IRole;
  scope: Construct;
}

export type AreaGrant = (grantee: AreaGrantee, resources: AreaResources) => void;

/** The SES v2 calls of the domains area: it registers sending identities, and nothing else. */
export const SES_IDENTITY_ACTIONS = [
  'ses:CreateEmailIdentity',
  'ses:GetEmailIdentity',
  'ses:DeleteEmailIdentity',
  'ses:PutEmailIdentityDkimSigningAttributes',
  'ses:PutEmailIdentityDkimAttributes',
  'ses:PutEmailIdentityMailFromAttributes',
] as const;

/** The SES v2 calls of the send worker: SendEmail (SendRawEmail is its v1 name for raw MIME). */
export const SES_SEND_ACTIONS = ['ses:SendEmail', 'ses:SendRawEmail'] as const;

/**
 * Every SES identity of the stack's account and region. Pseudo parameters even where the stack's
 * env is known, so the ARN (and the finding id acknowledged with it) reads the same everywhere.
 */
const sesIdentities = () => `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/*`;

/** What IAM and key policies name a configuration set by. */
export const configurationSetArn = (set: ses.IConfigurationSet) => `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:configuration-set/${set.configurationSetName}`;

/**
 * The configuration sets the platform makes at run time, one pair per dedicated IP
 * (functions/sending-ips/ses-resources.ts): named after the stack's two sets plus `-ip-<address>`.
 */
export const ipConfigurationSetArns = (sets: readonly ses.IConfigurationSet[]) => sets.map((set) => `${configurationSetArn(set)}-ip-*`);

/** SES's dedicated IP and pool calls, which take no resource narrower than the account and region. */
export const SES_DEDICATED_IP_ACTIONS = ['ses:GetDedicatedIps', 'ses:CreateDedicatedIpPool', 'ses:PutDedicatedIpInPool', 'ses:PutDedicatedIpWarmupAttributes'] as const;
/** The configuration set calls that give each dedicated IP its sets, on this stack's sets' names only. */
export const SES_IP_CONFIGURATION_SET_ACTIONS = ['ses:CreateConfigurationSet', 'ses:CreateConfigurationSetEventDestination'] as const;

/**
 * Dedicated IPs: the areas that name them (IPs and pools, a domain's IPs) see SES's list and
 * provision an address the first time it appears. SES's dedicated IP and pool operations take no
 * resource narrower than the account's; the configuration sets made are this stack's prefix only.
 */
function grantDedicatedIps(grantee: AreaGrantee, { configurationSet, requireTlsConfigurationSet }: AreaResources): void {
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...SES_DEDICATED_IP_ACTIONS], resources: ['*'] }));
  grantee.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [...SES_IP_CONFIGURATION_SET_ACTIONS],
      resources: ipConfigurationSetArns([configurationSet, requireTlsConfigurationSet]),
    }),
  );
  Validations.of(grantee.scope).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: "SES's dedicated IP and pool operations (GetDedicatedIps, CreateDedicatedIpPool, PutDedicatedIpInPool, PutDedicatedIpWarmupAttributes) are authorized per account and region only.",
  });
  acknowledgeIpConfigurationSets(grantee, [configurationSet, requireTlsConfigurationSet]);
}

function acknowledgeIpConfigurationSets(grantee: AreaGrantee, sets: readonly ses.IConfigurationSet[]): void {
  for (const set of sets) {
    Validations.of(grantee.scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:configuration-set/${nagArnReference(grantee, set, 'Ref')}-ip-*]`,
      reason: "The configuration sets of dedicated IPs SES leases after deployment (functions/sending-ips/ses-resources.ts): this stack's set's name plus the address, nothing else.",
    });
  }
}

function acknowledgeSesIdentities(grantee: AreaGrantee): void {
  Validations.of(grantee.scope).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
    reason: "Customers add their own sending domains at run time, so the identity names are not known at deploy time; the wildcard stays within this account and region's SES identities.",
  });
}

/**
 * How cdk-nag names a resource's ARN (or, with `Ref`, its name) in a grantee's policy:
 * `<LogicalId.Arn>` / `<LogicalId>` in the resource's own stack; from a nested stack (a product's,
 * lib/constructs/product-api.ts) it is the parameter CDK passes the value in by,
 * `<referenceto<unique id of the element>Arn>` (or `Ref`).
 */
function nagArnReference(grantee: AreaGrantee, resource: Construct, attribute: 'Arn' | 'Ref' = 'Arn'): string {
  const owner = Stack.of(resource);
  const element = resource.node.defaultChild as CfnElement;
  if (Stack.of(grantee.scope) === owner) {
    const logicalId = owner.getLogicalId(element);
    return attribute === 'Arn' ? `<${logicalId}.Arn>` : `<${logicalId}>`;
  }
  // CDK names the parameter after the referenced element's unique id (core/lib/private/refs.ts).
  return `<referenceto${Names.nodeUniqueId(element.node)}${attribute}>`;
}

function acknowledgeTableIndexes(grantee: AreaGrantee, table: dynamodb.ITable): void {
  // A table the stack uses but does not make (-c tableName, a restored one) is named by its ARN.
  const arn = table.node.defaultChild ? nagArnReference(grantee, table) : flattenCfnReference(Stack.of(grantee.scope).resolve(table.tableArn));
  Validations.of(grantee.scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${arn}/index/*]`,
    reason: "Queries on the table's own global secondary indexes (gsi1); the wildcard names no other table.",
  });
}

/** Read/write on the table and its indexes (the key design needs gsi1 for listings). */
export function grantTableReadWrite(grantee: AreaGrantee, table: dynamodb.ITable): void {
  table.grantReadWriteData(grantee.role);
  acknowledgeTableIndexes(grantee, table);
}

/** Reads only, on the table and its indexes. */
function grantTableRead(grantee: AreaGrantee, table: dynamodb.ITable): void {
  table.grantReadData(grantee.role);
  acknowledgeTableIndexes(grantee, table);
}

/**
 * Object-level calls on the stored-messages bucket, and no others: not the bucket's listing, its
 * configuration, tagging or retention that `grantPut`/`grantRead` would add.
 */
export function grantMessageObjects(grantee: AreaGrantee, bucket: s3.Bucket, actions: ReadonlyArray<'s3:PutObject' | 's3:GetObject'>): void {
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...actions], resources: [bucket.arnForObjects('*')] }));
  Validations.of(grantee.scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArnReference(grantee, bucket)}/*]`,
    reason: 'Objects of the stored-messages bucket only; their keys (account/domain/storage key) are created per message at run time.',
  });
}

/** Object-level calls on the inspection bucket (tests' inputs, results, images), and no others. */
export function grantInspectObjects(grantee: AreaGrantee, bucket: s3.Bucket, actions: ReadonlyArray<'s3:PutObject' | 's3:GetObject' | 's3:DeleteObject'>): void {
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...actions], resources: [bucket.arnForObjects('*')] }));
  Validations.of(grantee.scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArnReference(grantee, bucket)}/*]`,
    reason: 'Objects of the inspection bucket only; their keys (account/kind/test id/...) are created per test at run time.',
  });
}

/** An inspection API area: its tests in the table, their objects (deleting a test deletes them), queueing runs. */
const grantInspectArea: AreaGrant = (grantee, { table, inspectBucket, inspectQueue }) => {
  grantTableReadWrite(grantee, table);
  grantInspectObjects(grantee, inspectBucket, ['s3:PutObject', 's3:GetObject', 's3:DeleteObject']);
  grantSendToQueue(grantee, inspectQueue);
};

/**
 * The preview area: as every inspection area, and listing the bucket under a test's prefix, since
 * deleting a preview test deletes every screenshot of every run. Starting its workflows is granted
 * in inspection's nested stack, where they are (lib/constructs/inspection.ts).
 */
const grantPreviewArea: AreaGrant = (grantee, resources) => {
  grantInspectArea(grantee, resources);
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [resources.inspectBucket.bucketArn] }));
};

/** The inspection worker: reads a run's input, writes its result and images, ends the test, counts usage. */
export function grantInspectWorker(grantee: AreaGrantee, { table, inspectBucket }: AreaResources): void {
  grantTableReadWrite(grantee, table);
  grantInspectObjects(grantee, inspectBucket, ['s3:PutObject', 's3:GetObject']);
}

/** SendMessage on the send queue: not grantSendMessages, which adds GetQueueAttributes and GetQueueUrl. */
export function grantSendToQueue(grantee: AreaGrantee, queue: sqs.IQueue): void {
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
}

/** StartExecution on one state machine: not grantStartExecution's resource policy fallback, nothing else. */
export function grantStartExecution(grantee: AreaGrantee, stateMachine: sfn.IStateMachine): void {
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['states:StartExecution'], resources: [stateMachine.stateMachineArn] }));
}

/** Every ACM certificate of the stack's account and region (the platform's carry TRACKING_HOST_TAG). */
export const acmCertificates = () => `arn:${Aws.PARTITION}:acm:${Aws.REGION}:${Aws.ACCOUNT_ID}:certificate/*`;

/** Only certificates the platform requested (tagged so) may be read or deleted: never the operator's own. */
export const PLATFORM_CERTIFICATES = { StringLike: { [`aws:ResourceTag/${TRACKING_HOST_TAG}`]: '*' } };

/**
 * Reading the platform's certificates in ACM (the status route looks for renewals): Describe and
 * Get, on tagged certificates of this account and region.
 */
function grantReadTrackingCertificates(grantee: AreaGrantee): void {
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['acm:DescribeCertificate', 'acm:GetCertificate'], resources: [acmCertificates()], conditions: PLATFORM_CERTIFICATES }));
  Validations.of(grantee.scope).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*]',
    reason: "Tracking certificates are requested per customer domain at run time, so their ids are not known at deploy time; the grant is limited to this account and region's certificates that carry the platform's tag.",
  });
}

/** One GetItem on the table itself: all the authorizer does is look a key up by its hash. */
export function grantKeyLookup(grantee: AreaGrantee, table: dynamodb.ITable): void {
  // Not table.grant(): it adds the table's index/* ARN too, which a GetItem never needs.
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['dynamodb:GetItem'], resources: [table.tableArn] }));
}

/**
 * The authorizer's failed sign-in counts (functions/platform/auth-throttle.ts): read, and changed
 * one item at a time, on those items only (their partition keys start AUTH_FAILURES_PREFIX).
 */
export function grantAuthFailureCounts(grantee: AreaGrantee, table: dynamodb.ITable): void {
  grantee.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${AUTH_FAILURES_PREFIX}*`] } },
    }),
  );
}

const tableReadWrite: AreaGrant = (grantee, { table }) => grantTableReadWrite(grantee, table);

/**
 * Each API area's permissions, in one place. An area not listed gets table read/write only, so a
 * new area works out of the box and anything more is a visible line here.
 */
/** Domains and their keys: the table, the platform key (DKIM private keys are sealed), SES identities. */
export const grantSendingIdentities: AreaGrant = (grantee, { table, encryptionKey }) => {
  grantTableReadWrite(grantee, table);
  encryptionKey.grantRead(grantee.role);
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...SES_IDENTITY_ACTIONS], resources: [sesIdentities()] }));
  acknowledgeSesIdentities(grantee);
};

/** Table read/write and SES's dedicated IPs: the IP areas and the warm-up sweep. */
export const grantDedicatedIpManagement: AreaGrant = (grantee, resources) => {
  grantTableReadWrite(grantee, resources.table);
  grantDedicatedIps(grantee, resources);
};

/**
 * The Postmaster fetch job: its figures in the table, and the service account key it signs in
 * with. Only this job reads that secret; the GPT routes only need to know one is configured.
 */
export const grantPostmasterFetch: AreaGrant = (grantee, { table, postmasterCredentialsSecretArn }) => {
  grantTableReadWrite(grantee, table);
  if (postmasterCredentialsSecretArn) {
    grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [postmasterCredentialsSecretArn] }));
  }
};

const areaPermissions: Readonly<Record<string, AreaGrant>> = {
  keys: tableReadWrite,
  // The API reference touches nothing: its document and files are built into its Lambda.
  openapi: () => undefined,
  'inspect/links': grantInspectArea,
  'inspect/images': grantInspectArea,
  'inspect/accessibility': grantInspectArea,
  'inspect/analyze': grantInspectArea,
  'inspect/preview': grantPreviewArea,
  // Deleting a domain, or moving its tracking host, releases its tracking certificate (a workflow).
  // A domain's dedicated IPs and pool (POST /v3/domains/{name}/ips) name SES's leased addresses.
  domains: (grantee, resources) => {
    grantTableReadWrite(grantee, resources.table);
    resources.encryptionKey.grantRead(grantee.role);
    grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...SES_IDENTITY_ACTIONS], resources: [sesIdentities()] }));
    acknowledgeSesIdentities(grantee);
    grantStartExecution(grantee, resources.certificateStateMachine);
    grantDedicatedIps(grantee, resources);
  },
  // Starts certificate jobs; the status route asks ACM about renewals of the platform's certificates.
  certificates: (grantee, { table, certificateStateMachine }) => {
    grantTableReadWrite(grantee, table);
    grantStartExecution(grantee, certificateStateMachine);
    grantReadTrackingCertificates(grantee);
  },
  dkim: grantSendingIdentities,
  // Dedicated IPs and pools over SES's leased addresses.
  'admin/ips': grantDedicatedIpManagement,
  'admin/dynamic-pools': grantDedicatedIpManagement,
  // Authorized recipients: adding one mails its confirmation through the sending pipeline (store, queue).
  'admin/sandbox': (grantee, { table, messagesBucket, sendQueue }) => {
    grantTableReadWrite(grantee, table);
    grantMessageObjects(grantee, messagesBucket, ['s3:PutObject']);
    grantSendToQueue(grantee, sendQueue);
  },
  // Accepting a message: store its MIME, record it and its accepted events, queue it (or, with
  // o:deliverytime, start its scheduled-delivery execution). Reading a stored message (GET,
  // resend) reads the MIME back.
  // A send to a list address stores the post's content and queues its expansion (the list queue).
  messages: (grantee, { table, messagesBucket, sendQueue, scheduleStateMachine, listQueue }) => {
    grantTableReadWrite(grantee, table);
    grantMessageObjects(grantee, messagesBucket, ['s3:PutObject', 's3:GetObject']);
    grantSendToQueue(grantee, sendQueue);
    grantStartExecution(grantee, scheduleStateMachine);
    grantSendToQueue(grantee, listQueue);
  },
  // Lists and members; a bulk upload beyond 100 entries stores them and queues its task.
  lists: (grantee, { table, messagesBucket, listQueue }) => {
    grantTableReadWrite(grantee, table);
    grantMessageObjects(grantee, messagesBucket, ['s3:PutObject']);
    grantSendToQueue(grantee, listQueue);
  },
  // Google Postmaster data: the routes read what the daily fetch stored; they write nothing.
  'optimize/postmaster': (grantee, { table }) => grantTableRead(grantee, table),
  // Listing events reads the domain and the event partitions; it writes nothing.
  events: (grantee, { table }) => grantTableRead(grantee, table),
  // Reads stored messages back: the record and its MIME, nothing else.
  storage: (grantee, { table, messagesBucket }) => {
    grantTableRead(grantee, table);
    grantMessageObjects(grantee, messagesBucket, ['s3:GetObject']);
  },
  // Metrics, stats and aggregates read counters and domains (BatchGetItem, Query, GetItem); the
  // counters are written by the event-stream Lambda, not here.
  analytics: (grantee, { table }) => grantTableRead(grantee, table),
  // Logs read the account-wide event index (gsi1) and the domains; they write nothing.
  logs: (grantee, { table }) => grantTableRead(grantee, table),
  // Webhook configuration, and the signing key, sealed and unsealed with the platform key.
  webhooks: (grantee, { table, encryptionKey }) => {
    grantTableReadWrite(grantee, table);
    encryptionKey.grantRead(grantee.role);
  },
};

export function grantArea(area: string, grantee: AreaGrantee, resources: AreaResources): void {
  (areaPermissions[area] ?? tableReadWrite)(grantee, resources);
}

/*
 * The queue workers. Receiving and deleting their own queue's messages is granted by the SQS
 * event source that feeds them (lib/constructs/sending.ts); what they do with a message is here.
 */

/**
 * The send worker: claims recipients and records events in the table, reads the stored MIME,
 * sends it through SES with the platform's configuration set, and re-queues a retry on its own
 * queue (SendMessage with DelaySeconds).
 */
export function grantSendWorker(grantee: AreaGrantee, { table, messagesBucket, sendQueue, configurationSet, requireTlsConfigurationSet }: AreaResources): void {
  const sets = [configurationSet, requireTlsConfigurationSet];
  grantTableReadWrite(grantee, table);
  grantMessageObjects(grantee, messagesBucket, ['s3:GetObject']);
  grantSendToQueue(grantee, sendQueue);
  grantee.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [...SES_SEND_ACTIONS],
      // SES authorizes a send against the sending identity and the configuration set it names.
      // The sets of each dedicated IP send a domain's mail from its IPs or pool (functions/sending-ips).
      resources: [sesIdentities(), ...sets.map(configurationSetArn), ...ipConfigurationSetArns(sets)],
    }),
  );
  acknowledgeSesIdentities(grantee);
  acknowledgeIpConfigurationSets(grantee, sets);
}

/** The notifications worker: finds the message a notification names and records its events. */
export function grantNotificationsWorker(grantee: AreaGrantee, { table }: AreaResources): void {
  grantTableReadWrite(grantee, table);
}

/**
 * The event-stream worker: adds to the analytics counters, registers tags and marks the batches
 * it finished, all in the table, and queues webhook deliveries (fanOutWebhooks: SendMessage, which
 * also authorizes SendMessageBatch). Reading the stream is granted by its event source.
 */
export function grantEventStreamWorker(grantee: AreaGrantee, { table, webhookQueue }: AreaResources): void {
  grantTableReadWrite(grantee, table);
  grantSendToQueue(grantee, webhookQueue);
}

/**
 * The list worker: reads a post's content and an upload's members (objects beside the stored
 * messages), accepts each member's copy as the messages area does (MIME put, record and events,
 * the send queue or a scheduled-delivery execution), and queues the next page on its own queue.
 * Its dead-letter consumer shares the grant: it only writes post and task statuses.
 */
export function grantListWorker(grantee: AreaGrantee, { table, messagesBucket, sendQueue, scheduleStateMachine, listQueue }: AreaResources): void {
  grantTableReadWrite(grantee, table);
  grantMessageObjects(grantee, messagesBucket, ['s3:PutObject', 's3:GetObject']);
  grantSendToQueue(grantee, sendQueue);
  grantStartExecution(grantee, scheduleStateMachine);
  grantSendToQueue(grantee, listQueue);
}

/**
 * Giving up on a message (scheduled delivery's last resort, the send queue's dead-letter consumer):
 * claims the unsent recipients and records their failed events.
 */
export function grantAbandonUnsent(grantee: AreaGrantee, { table }: AreaResources): void {
  grantTableReadWrite(grantee, table);
}

/**
 * The webhook worker: claims deliveries and records given-up ones in the table, makes or reads the
 * account's signing key (sealed with the platform key), and re-queues retries on its own queue.
 */
export function grantWebhookWorker(grantee: AreaGrantee, { table, encryptionKey, webhookQueue }: AreaResources): void {
  grantTableReadWrite(grantee, table);
  encryptionKey.grantRead(grantee.role);
  grantSendToQueue(grantee, webhookQueue);
}
