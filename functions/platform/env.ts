import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod/v3';
import { parseTrapList } from '../optimize/spamtraps/trap-list-syntax';

// Variables of the same kind share one schema (zod schemas are immutable): every Lambda builds this
// contract at cold start, and each zod object binds two dozen methods; built field by field, its 83
// fields took 263 of them, shared 126 (about 1 ms less per cold start).
const optionalString = z.string().optional();
const optionalNonEmpty = z.string().min(1).optional();
const optionalUrl = z.string().url().optional();
const optionalStateMachineArn = z
  .string()
  .regex(/^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$/, 'a Step Functions state machine ARN')
  .optional();
const optionalPort = z.coerce.number().int().min(1).max(65535).optional();
const positiveInteger = z.coerce.number().int().min(1);
const nonNegativeInteger = z.coerce.number().int().min(0);
const percentage = z.coerce.number().positive().max(100);

/**
 * The configuration contract between the hosts (CDK, local) and the handlers. CDK sets these as
 * Lambda environment variables; the local host runs each region's requests inside `withEnv` so two
 * regions can share one process with different tables and endpoints.
 */
export const platformEnvSchema = z.object({
  /** The platform's own region label, used in ids and the `pod` field: us or eu. */
  PLATFORM_REGION: z.enum(['us', 'eu']).default('us'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(1),
  /** Endpoint overrides: set only where a stand-in replaces the AWS service. */
  DYNAMODB_ENDPOINT: optionalUrl,
  SES_ENDPOINT: optionalUrl,
  SECRETSMANAGER_ENDPOINT: optionalUrl,
  /** S3 stand-in endpoint (path-style); unset on AWS. */
  S3_ENDPOINT: optionalUrl,
  /** SQS stand-in endpoint; unset on AWS, where queue URLs name their endpoint. */
  SQS_ENDPOINT: optionalUrl,
  /** Step Functions stand-in endpoint; unset on AWS. */
  SFN_ENDPOINT: optionalUrl,
  /** ACM and API Gateway (v2 management API) stand-in endpoints; unset on AWS. */
  ACM_ENDPOINT: optionalUrl,
  APIGATEWAY_ENDPOINT: optionalUrl,
  /** Where accepted messages' MIME is stored. */
  MESSAGES_BUCKET: z.string().min(1).default('messages'),
  /** Inspection tests' inputs and results, and optimized images (lib/constructs/inspection.ts): kept 90 days. */
  INSPECT_BUCKET: z.string().min(1).default('inspections'),
  /** The send queue: one entry per accepted message, consumed by the send worker. */
  SEND_QUEUE_URL: optionalUrl,
  /** The scheduled-delivery state machine (lib/workflows/scheduled-delivery.asl.json): o:deliverytime waits there. */
  SCHEDULE_STATE_MACHINE_ARN: optionalStateMachineArn,
  /**
   * The tracking-certificate state machine (lib/workflows/tracking-certificate.asl.json): POST and
   * PUT /v2/x509/{host} start it to issue a certificate, deleting a domain starts it to release one.
   */
  CERTIFICATE_STATE_MACHINE_ARN: optionalStateMachineArn,
  /** The HTTP API that serves tracking hosts over HTTPS: each certificate's custom domain name maps to it. */
  TRACKING_API_ID: optionalNonEmpty,
  /** How often the certificate workflow asks ACM whether it has issued the certificate. */
  CERTIFICATE_POLL_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** How long it waits for the validation record before the job ends in `error`: ACM's own 72 hours. */
  CERTIFICATE_DEADLINE_SECONDS: positiveInteger.default(72 * 3600),
  /**
   * The ports tracking hosts are served on, written into tracking links when not the scheme's
   * default (80, 443). Unset on AWS; local mode sets them to its API port and TRACKING_TLS_PORT.
   */
  TRACKING_HTTP_PORT: optionalPort,
  TRACKING_HTTPS_PORT: optionalPort,
  /** The SES configuration set whose event destination feeds the notifications queue. */
  SES_CONFIGURATION_SET: optionalString,
  /**
   * Its twin with SES's TLS policy Require, for messages that must go over TLS (o:require-tls or
   * the domain's require_tls): SES sets TLS per configuration set, not per message.
   */
  SES_TLS_CONFIGURATION_SET: optionalString,
  /**
   * The SNS topic SES publishes sending events to: the configuration sets the platform makes for
   * each dedicated IP (functions/sending-ips) publish there too, as the stack's two sets do.
   */
  SES_EVENTS_TOPIC_ARN: optionalString,
  /** First retry delay of a throttled send, doubling per attempt (at most 900 s, SQS's limit). */
  SEND_RETRY_BASE_SECONDS: nonNegativeInteger.default(60),
  /** This region's API base URL: tracking links use it until the domain's tracking CNAME is verified. */
  PUBLIC_API_URL: optionalUrl,
  /** How long events are kept, in days. */
  EVENT_TTL_DAYS: z.coerce.number().int().positive().default(30),
  /** Key that encrypts secrets at rest (DKIM private keys): given directly, or read from Secrets Manager. */
  ENCRYPTION_KEY: optionalString,
  ENCRYPTION_KEY_SECRET_ID: optionalString,
  /** Comma-separated resolver addresses (`ip` or `ip:port`) for domain verification; system resolvers when unset. */
  DNS_SERVERS: optionalString,
  /**
   * Whom a sandbox domain sends to: `authorized`, only the account's activated authorized
   * recipients (/v5/sandbox/auth_recipients), as Mailgun's sandbox does; `any`, everyone.
   */
  SANDBOX_RECIPIENTS: z.enum(['authorized', 'any']).default('authorized'),
  /**
   * The domain DMARC aggregate reports are mailed to (`rua=mailto:<instance id>@<domain>`), received
   * through the inbound path; unset, no rua address is handed out (reports can still be uploaded).
   */
  DMARC_REPORTS_DOMAIN: optionalNonEmpty,
  /**
   * Resolvers (`ip` or `ip:port`, comma-separated) blocklist lookups go through: your own recursive
   * resolvers, since Spamhaus and URIBL refuse queries from shared ones. Unset, every list is `unknown`.
   */
  /**
   * Inbox placement (functions/optimize/inbox): the domain seed lists' target addresses are on
   * (`ibp-<id>@<domain>`), received through the inbound path; unset, seed lists cannot be created.
   */
  SEED_INBOX_DOMAIN: optionalNonEmpty,
  /** The placement poll workflow (lib/workflows/placement-poll.asl.json): a copy reaching a target address starts it. */
  PLACEMENT_STATE_MACHINE_ARN: optionalNonEmpty,
  /** Seconds between two polls of a test's seed mailboxes. */
  PLACEMENT_POLL_SECONDS: positiveInteger.default(180),
  /** Seconds after the copy reached the target address by which copies not found are `missing`. */
  PLACEMENT_DEADLINE_SECONDS: positiveInteger.default(3600),
  /** SpamAssassin's spamd (`host:port`) scoring each test's content; unset (and no RSPAMD_URL), `spamassassin` is null. */
  SPAMD_ADDRESS: z.string().regex(/^[^:\s]+:\d+$/, 'must be host:port').optional(),
  /** rspamd's controller/normal worker base URL (`POST /checkv2`), used when SPAMD_ADDRESS is unset. */
  RSPAMD_URL: optionalUrl,
  BLOCKLIST_RESOLVERS: optionalString,
  /** A Spamhaus Data Query Service key: ZEN and DBL are then asked at `<key>.<list>.dq.spamhaus.net`. */
  SPAMHAUS_DQS_KEY: z.string().regex(/^[a-z0-9]{26}$/, 'a DQS key is 26 lower-case letters and digits').optional(),
  /** Seconds between two checks of a monitored IP or domain (the first is right after it is added). */
  BLOCKLIST_CHECK_INTERVAL: positiveInteger.default(3600),
  /** The blocklist check workflow (lib/workflows/blocklist-check.asl.json): the sweep and new subjects start it. */
  BLOCKLIST_STATE_MACHINE_ARN: optionalNonEmpty,
  /**
   * The alerts delivery queue: one message per (alert, setting), filled by raiseAlert
   * (functions/optimize/alerts/raise.ts), consumed by functions/optimize/alerts/delivery-worker.ts.
   */
  ALERT_QUEUE_URL: optionalUrl,
  /** Seconds during which a second alert for the same event, subject and list (a listing that came back) is not delivered again. */
  ALERT_DEDUPE_WINDOW_SECONDS: nonNegativeInteger.default(3600),
  /** Multiplies the alerts webhook retry schedule (1m, 5m, 15m, 30m, 1h, 2h, 4h); tests shrink it to seconds. */
  ALERT_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  /**
   * The domain alert emails are sent from (`alerts@<domain>`), through the sending pipeline of
   * whichever account holds it in this region; unset, each account's alerts come from its own
   * sandbox domain, which reaches only its authorized recipients unless SANDBOX_RECIPIENTS=any.
   */
  ALERTS_EMAIL_DOMAIN: optionalNonEmpty,
  /** Slack's Web API (chat.postMessage, conversations.list/info, auth.revoke); tests point it at a loopback stand-in. */
  SLACK_API_URL: z.string().url().default('https://slack.com/api'),
  /**
   * The operator's spam traps: `type:entry` separated by commas or new lines, `type` one of
   * pristine, recycled, typo, harvested and `entry` an address or a domain (functions/optimize/spamtraps/trap-list.ts).
   */
  SPAM_TRAP_LIST: z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseTrapList(value);
      } catch (error) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
      }
    })
    .optional(),
  /**
   * The reputation guard (functions/reputation): how often local mode runs it (seconds, when more
   * often than its rule's 15 minutes: tests), over how many hours it judges (whole hours of the analytics
   * counters), and from how many messages delivered or bounced in that window on.
   */
  REPUTATION_CHECK_INTERVAL: positiveInteger.default(900),
  REPUTATION_WINDOW_HOURS: z.coerce.number().int().min(1).max(24 * 60).default(24),
  REPUTATION_MIN_VOLUME: positiveInteger.default(1000),
  /**
   * Its levels, in percent of messages delivered or bounced: above a warning level an account is
   * alerted; above a pause level a subaccount's sending is turned off. The bounce pause level is
   * the region's own SES alarm level, so no one subaccount carries the SES account to review; the
   * complaint pause level is SES's review level, so that one complaint in a thousand only warns.
   */
  REPUTATION_BOUNCE_WARNING_PERCENT: percentage.default(2),
  REPUTATION_BOUNCE_PAUSE_PERCENT: percentage.default(4),
  REPUTATION_COMPLAINT_WARNING_PERCENT: percentage.default(0.05),
  REPUTATION_COMPLAINT_PAUSE_PERCENT: percentage.default(0.1),
  /** Processed messages in 30 days below which no health score is given (Mailgun's: 10,000). */
  HEALTH_SCORE_MIN_VOLUME: positiveInteger.default(1000),
  /**
   * Google Postmaster Tools (functions/optimize/postmaster): the service account whose JSON key
   * the daily fetch signs in with. On AWS a Secrets Manager secret holding the key (only the
   * fetch job may read it); in local mode the key inline or a path to its file. None set: the
   * fetch does nothing and the routes answer empty data saying why.
   */
  POSTMASTER_CREDENTIALS_SECRET_ID: optionalNonEmpty,
  POSTMASTER_SERVICE_ACCOUNT_JSON: optionalNonEmpty,
  POSTMASTER_SERVICE_ACCOUNT_FILE: optionalNonEmpty,
  /** A Google Workspace user the service account acts for (domain-wide delegation), when the domains were verified by that user. */
  POSTMASTER_IMPERSONATE: z.string().email().optional(),
  /** Postmaster Tools API v2's base URL (tests point it at a loopback stand-in). */
  POSTMASTER_API_URL: z.string().url().default('https://gmailpostmastertools.googleapis.com'),
  /** The OAuth 2.0 token endpoint; unset, the key's own `token_uri` (Google's). */
  POSTMASTER_TOKEN_URL: optionalUrl,
  /** How many past days each fetch asks for: Google's figures arrive a day or two late and can be revised. */
  POSTMASTER_FETCH_DAYS: z.coerce.number().int().min(1).max(120).default(14),
  /** Parent domain of every account's sandbox domain; verified once in SES, it covers all subdomains. */
  SANDBOX_DOMAIN: z.string().min(1).default('sandbox.localhost'),
  /** Where a domain's tracking CNAME (web_prefix.domain) must point: the API's host name. */
  TRACKING_CNAME_TARGET: z.string().min(1).default('localhost'),
  MAX_MESSAGE_TTL: z.coerce.number().int().positive().default(7 * 24 * 3600),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  /** Distinct tags an account may have (Mailgun's default: 100,000); later new tags are not registered. */
  TAG_LIMIT_ACCOUNT: nonNegativeInteger.default(100_000),
  /** Distinct tags a domain may have (Mailgun's default: 20,000), for /v3/{domain}/tags. */
  TAG_LIMIT_DOMAIN: nonNegativeInteger.default(20_000),
  /**
   * Inbound route actions (forward to a URL or an address, store notifications): one message per
   * action, consumed by functions/inbound/action-worker.ts, retried on the webhook schedule.
   */
  INBOUND_ACTION_QUEUE_URL: optionalUrl,
  /** The webhook delivery queue: one message per (event, URL), consumed by functions/webhooks/delivery-worker.ts. */
  WEBHOOK_QUEUE_URL: optionalUrl,
  /** The list queue: list-post expansion pages and bulk member uploads, consumed by functions/lists/expansion-worker.ts. */
  LIST_QUEUE_URL: optionalUrl,
  /** IP pool work done after the reply (moving a deleted pool's domains, an IP on or off every domain): functions/sending-ips/ip-jobs.ts. */
  IP_JOB_QUEUE_URL: optionalUrl,
  /** The inspection queue: one message per test run, consumed by functions/inspect/job-worker.ts. */
  INSPECT_QUEUE_URL: optionalUrl,
  /** The email preview workflow (lib/workflows/email-preview.asl.json): one execution renders a test's clients. */
  PREVIEW_STATE_MACHINE_ARN: optionalNonEmpty,
  /** The preview export workflow (lib/workflows/preview-export.asl.json): one execution zips a test's screenshots. */
  PREVIEW_EXPORT_STATE_MACHINE_ARN: optionalNonEmpty,
  /**
   * The domain preview addresses are on (POST /v2/preview/address): mail received for it becomes
   * preview tests. It must receive through the region's SES receipt rule (MX to SES, verified);
   * unset, the address routes answer that previews by email are not configured.
   */
  PREVIEW_INBOX_DOMAIN: optionalNonEmpty,
  /**
   * The real-client preview tier (functions/inspect/preview/real-clients): `emailonacid` adds Email
   * on Acid's clients to the catalog, screenshotted in real mail clients. Off unless set, and off
   * while its credentials are missing.
   */
  PREVIEW_REAL_CLIENTS: z.enum(['emailonacid']).optional(),
  EOA_API_URL: z.string().url().default('https://api.emailonacid.com/v5'),
  /** Email on Acid's credentials: a Secrets Manager secret (JSON `apiKey`, `password`) on AWS ... */
  EOA_CREDENTIALS_SECRET_ID: optionalNonEmpty,
  /** ... or the operator's environment (local mode). */
  EOA_API_KEY: optionalNonEmpty,
  EOA_PASSWORD: optionalNonEmpty,
  /** How often a render task asks the real-client service whether a client is done. */
  PREVIEW_REAL_POLL_SECONDS: z.coerce.number().positive().max(60).default(10),
  /**
   * The Chromium that renders previews. Unset: the @sparticuz/chromium build that `npm ci` installs
   * (Lambda, and x86-64 Linux in local mode); elsewhere Debian's /usr/bin/chromium or a Chrome.
   */
  CHROMIUM_PATH: optionalNonEmpty,
  /**
   * Let webhook URLs reach this machine's loopback (127.0.0.0/8, ::1), and accept names that do not
   * resolve yet. Off on AWS (a URL must not turn the platform into a proxy into its own network:
   * SSRF); local mode sets it so a receiver on 127.0.0.1 works. Private, link-local and cloud
   * metadata addresses stay refused whatever it says (functions/webhooks/address-policy.ts).
   * Unset, WEBHOOK_ALLOW_PRIVATE_URLS decides.
   */
  WEBHOOK_ALLOW_LOOPBACK_URLS: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
  /**
   * The older name of WEBHOOK_ALLOW_LOOPBACK_URLS, kept so existing configurations still start. It
   * once also opened private and link-local networks, metadata service included; it now means
   * loopback only, the narrowing being the point.
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /** How long a container reuses an account's monthly limit setting it read (the count itself is always exact); 0 reads every time. */
  MONTHLY_LIMIT_CACHE_SECONDS: z.coerce.number().min(0).default(30),
  /**
   * Items a capped account's monthly count is spread over (functions/accounts/monthly-limit.ts):
   * each takes about 1,000 writes a second on DynamoDB, so an account sending more than that
   * against its limit needs more. Change it between months (docs/capacity.md).
   */
  MONTHLY_LIMIT_SHARDS: z.coerce.number().int().min(1).max(32).default(1),
  /** How long a container reuses a webhook configuration it read (Mailgun: changes may take minutes); 0 reads every time. */
  WEBHOOK_CONFIG_CACHE_SECONDS: z.coerce.number().min(0).default(60),
  /** Multiplies Mailgun's retry schedule (10m ... 4h); tests shrink it to seconds. */
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  /** How long one webhook POST may take, connection to last byte, before it counts as failed. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
});

export type PlatformEnv = z.infer<typeof platformEnvSchema>;

type RawEnv = Record<string, string | undefined>;

const scoped = new AsyncLocalStorage<RawEnv>();
const parsed = new WeakMap<RawEnv, PlatformEnv>();

/** Runs `fn` with `raw` as the environment seen by `env()` (used by the local host, one per region). */
export function withEnv<T>(raw: RawEnv, fn: () => T): T {
  return scoped.run(raw, fn);
}

/** The raw environment in force: the scoped one, or the process's. */
export function rawEnv(): RawEnv {
  return scoped.getStore() ?? process.env;
}

const ENV_KEYS = Object.keys(platformEnvSchema.shape) as Array<keyof PlatformEnv>;
let processEnv: { values: Array<string | undefined>; parsed: PlatformEnv } | undefined;

/** process.env is live (tests change it), so its parse is reused only while the values it read stay the same. */
function fromProcessEnv(): PlatformEnv {
  const values = ENV_KEYS.map((key) => process.env[key]);
  if (!processEnv || values.some((value, i) => value !== processEnv!.values[i])) {
    processEnv = { values, parsed: platformEnvSchema.parse(process.env) };
  }
  return processEnv.parsed;
}

export function env(): PlatformEnv {
  const raw = rawEnv();
  if (raw === process.env) return fromProcessEnv();
  let value = parsed.get(raw);
  if (!value) {
    value = platformEnvSchema.parse(raw);
    // Scoped envs (local mode's regions) are immutable by contract: one parse each.
    parsed.set(raw, value);
  }
  return value;
}
