import { Duration, Token } from 'aws-cdk-lib';
import { PLATFORM_SETTINGS, platformEnvSchema, shapeOf, type PlatformEnv } from '../../functions/platform/env';
import { z } from 'zod/v3';
import { guardLevels } from '../../functions/reputation/levels';
import type { PlatformRegion } from '../regions';
import { withAreaChecks } from '../setting-checks';

/** The handlers' own default upper bound of a domain's message_ttl (functions/domains/domains.ts). */
export const DEFAULT_MAX_MESSAGE_TTL = Duration.seconds(platformEnvSchema.shape.MAX_MESSAGE_TTL.parse(undefined));

/** How blocklist lookups are made (optimize contract 2.2); without resolvers every list is `unknown`. */
export interface BlocklistSettings {
  /** Comma-separated `ip` or `ip:port` of the operator's own recursive resolvers. */
  resolvers?: string;
  spamhausDqsKey?: string;
  checkIntervalSeconds?: number;
}

/** Inbox placement's poll cadence and content scorer (PLACEMENT_*, SPAMD_ADDRESS, RSPAMD_URL). */
export interface PlacementSettings {
  pollSeconds?: number;
  deadlineSeconds?: number;
  /** `host:port` of the operator's spamd, reachable from the Lambdas. */
  spamdAddress?: string;
  rspamdUrl?: string;
}

/**
 * The reputation guard's levels (REPUTATION_* of functions/platform/env.ts); each left out keeps
 * the handlers' default. From context: `-c reputationBouncePausePercent=3` and the like.
 */
export interface ReputationGuardSettings {
  windowHours?: number;
  minVolume?: number;
  bounceWarningPercent?: number;
  bouncePausePercent?: number;
  complaintWarningPercent?: number;
  complaintPausePercent?: number;
}

export interface PlatformEnvSettings {
  platformRegion: PlatformRegion;
  tableName: string;
  encryptionKeySecretId: string;
  sandboxDomain: string;
  trackingCnameTarget: string;
  /** The API's base URL (its custom domain, or execute-api's): stored messages' URLs in webhooks and route notifications name it. */
  publicApiUrl?: string;
  // The sending pipeline's resources: optional as in the contract (a handler that does not send
  // needs none of them), but the stack always sets them (lib/constructs/api.ts).
  /** The stored-messages bucket (MIME of accepted messages). */
  messagesBucket?: string;
  /** The send queue's URL: the messages area queues accepted messages, the send worker re-queues retries. */
  sendQueueUrl?: string;
  /** The SES configuration set every send names, so its events reach the notifications queue. */
  sesConfigurationSet?: string;
  /** Its twin with TLS required, for messages that must go over TLS. */
  sesTlsConfigurationSet?: string;
  /** The topic SES publishes sending events to (the sets made per dedicated IP publish there too). */
  sesEventsTopicArn?: string;
  /** The scheduled-delivery state machine's ARN: the messages area starts an execution per scheduled message. */
  scheduleStateMachineArn?: string;
  /** The tracking-certificate state machine's ARN: POST/PUT /v2/x509 start it, deleting a domain releases through it. */
  certificateStateMachineArn?: string;
  /** Upper bound of a domain's message_ttl; the messages bucket must keep objects at least this long. */
  maxMessageTtl?: Duration;
  /** The webhook delivery queue's URL: fan-out fills it, the webhook worker re-queues retries on it. */
  webhookQueueUrl?: string;
  /** The list queue's URL: list posts and bulk uploads queue their jobs, the list worker its next pages. */
  listQueueUrl?: string;
  /** The route action queue's URL: the inbound worker queues actions, the action worker re-queues retries. */
  inboundActionQueueUrl?: string;
  /** The inspection bucket (tests' inputs, results and images). */
  inspectBucket?: string;
  /** The inspection queue's URL: creating or reprocessing a test queues its run. */
  inspectQueueUrl?: string;
  /** The domain preview addresses are on: its mail, received by the inbound rule, becomes preview tests. */
  previewInboxDomain?: string;
  /** DMARC_REPORTS_DOMAIN: the rua addresses' domain. */
  dmarcReportsDomain?: string;
  /** SEED_INBOX_DOMAIN: the seed list targets' domain. */
  seedInboxDomain?: string;
  /** The real-client preview tier: its service and the secret holding its credentials. */
  previewRealClients?: { service: 'emailonacid'; credentialsSecretArn: string };
  /** Blocklist monitoring's resolvers, Spamhaus DQS key and check interval (BLOCKLIST_*, SPAMHAUS_DQS_KEY). */
  blocklists?: BlocklistSettings;
  /** SPAM_TRAP_LIST: the operator's spam traps, `type:address-or-domain`, comma-separated. */
  spamTrapList?: string;
  placement?: PlacementSettings;
  reputationGuard?: ReputationGuardSettings;
  /** MONTHLY_LIMIT_SHARDS: items a capped account's monthly count is spread over (docs/capacity.md). */
  monthlyLimitShards?: number;
  /** EVENT_SHARDS: partitions a domain's day (and an account's hour) of events is spread over (docs/capacity.md). */
  eventShards?: number;
  /** The secret holding the Google service account key the Postmaster fetch signs in with. */
  postmasterCredentialsSecretArn?: string;
  logLevel?: PlatformEnv['LOG_LEVEL'];
}

/**
 * What an unresolved token stands for when the contract is checked at synth time: a value of the
 * shape the deployed one will have (CloudFormation fills it in), so the schema's format checks
 * (a queue URL is a URL) still run on everything that is known.
 */
const TOKEN_STAND_INS: Partial<Record<keyof PlatformEnv, string>> = {
  PUBLIC_API_URL: 'https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com',
  SEND_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/send-queue',
  SCHEDULE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:scheduled-delivery',
  CERTIFICATE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:tracking-certificate',
  WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhook-queue',
  LIST_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/list-queue',
  INBOUND_ACTION_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/route-action-queue',
  INSPECT_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/inspect-queue',
};

/** The handlers' contract with the areas' own checks of their settings (lib/setting-checks.ts). */
const checkedEnvSchema = z.object(shapeOf(withAreaChecks(PLATFORM_SETTINGS)));

/**
 * The Lambda environment of every platform handler, per the handlers' own contract
 * (functions/platform/env.ts). AWS_REGION is Lambda's to set, not ours.
 */
export function platformEnvironment(settings: PlatformEnvSettings): Record<string, string> {
  const contract: Partial<Record<keyof PlatformEnv, string | undefined>> = {
    PLATFORM_REGION: settings.platformRegion,
    TABLE_NAME: settings.tableName,
    ENCRYPTION_KEY_SECRET_ID: settings.encryptionKeySecretId,
    SANDBOX_DOMAIN: settings.sandboxDomain,
    TRACKING_CNAME_TARGET: settings.trackingCnameTarget,
    PUBLIC_API_URL: settings.publicApiUrl,
    MESSAGES_BUCKET: settings.messagesBucket,
    SEND_QUEUE_URL: settings.sendQueueUrl,
    SES_CONFIGURATION_SET: settings.sesConfigurationSet,
    SES_TLS_CONFIGURATION_SET: settings.sesTlsConfigurationSet,
    SES_EVENTS_TOPIC_ARN: settings.sesEventsTopicArn,
    SCHEDULE_STATE_MACHINE_ARN: settings.scheduleStateMachineArn,
    CERTIFICATE_STATE_MACHINE_ARN: settings.certificateStateMachineArn,
    // Set explicitly, not left to the handlers' default: the bucket's lifecycle is checked against it.
    MAX_MESSAGE_TTL: String((settings.maxMessageTtl ?? DEFAULT_MAX_MESSAGE_TTL).toSeconds()),
    LOG_LEVEL: settings.logLevel ?? 'INFO',
    WEBHOOK_QUEUE_URL: settings.webhookQueueUrl,
    LIST_QUEUE_URL: settings.listQueueUrl,
    INBOUND_ACTION_QUEUE_URL: settings.inboundActionQueueUrl,
    INSPECT_BUCKET: settings.inspectBucket,
    INSPECT_QUEUE_URL: settings.inspectQueueUrl,
    PREVIEW_INBOX_DOMAIN: settings.previewInboxDomain,
    DMARC_REPORTS_DOMAIN: settings.dmarcReportsDomain,
    SEED_INBOX_DOMAIN: settings.seedInboxDomain,
    PREVIEW_REAL_CLIENTS: settings.previewRealClients?.service,
    EOA_CREDENTIALS_SECRET_ID: settings.previewRealClients?.credentialsSecretArn,
    BLOCKLIST_RESOLVERS: settings.blocklists?.resolvers,
    SPAMHAUS_DQS_KEY: settings.blocklists?.spamhausDqsKey,
    BLOCKLIST_CHECK_INTERVAL: settings.blocklists?.checkIntervalSeconds?.toString(),
    SPAM_TRAP_LIST: settings.spamTrapList,
    PLACEMENT_POLL_SECONDS: settings.placement?.pollSeconds?.toString(),
    PLACEMENT_DEADLINE_SECONDS: settings.placement?.deadlineSeconds?.toString(),
    SPAMD_ADDRESS: settings.placement?.spamdAddress,
    RSPAMD_URL: settings.placement?.rspamdUrl,
    POSTMASTER_CREDENTIALS_SECRET_ID: settings.postmasterCredentialsSecretArn,
    MONTHLY_LIMIT_SHARDS: settings.monthlyLimitShards?.toString(),
    EVENT_SHARDS: settings.eventShards?.toString(),
    REPUTATION_WINDOW_HOURS: settings.reputationGuard?.windowHours?.toString(),
    REPUTATION_MIN_VOLUME: settings.reputationGuard?.minVolume?.toString(),
    REPUTATION_BOUNCE_WARNING_PERCENT: settings.reputationGuard?.bounceWarningPercent?.toString(),
    REPUTATION_BOUNCE_PAUSE_PERCENT: settings.reputationGuard?.bouncePausePercent?.toString(),
    REPUTATION_COMPLAINT_WARNING_PERCENT: settings.reputationGuard?.complaintWarningPercent?.toString(),
    REPUTATION_COMPLAINT_PAUSE_PERCENT: settings.reputationGuard?.complaintPausePercent?.toString(),
  };
  // Settings left out are left out of the environment. A value the handlers would reject fails
  // the synth, not the first request after a deploy.
  const entries = Object.entries(contract).filter(([, value]) => value !== undefined) as Array<[keyof PlatformEnv, string]>;
  const checkable = Object.fromEntries(entries.map(([key, value]) => [key, Token.isUnresolved(value) ? (TOKEN_STAND_INS[key] ?? 'resolved-at-deploy') : value]));
  // With the areas' own checks of their settings (the spam-trap list's syntax); the reputation
  // guard's levels are checked together too (a warning level above its pause level).
  guardLevels(checkedEnvSchema.parse(checkable));
  return { ...Object.fromEntries(entries), POWERTOOLS_SERVICE_NAME: 'mailplane', NODE_OPTIONS: '--enable-source-maps' };
}

