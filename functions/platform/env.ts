import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod/v3';

// Variables of the same kind share one schema (zod schemas are immutable): every Lambda builds this
// contract at cold start, and each zod object binds two dozen methods. The descriptions beside
// them are plain strings, so they cost no zod objects.
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

/** One setting of the handlers or a host: its schema, what it means, and who sets it. */
export interface Setting<S extends z.ZodTypeAny = z.ZodTypeAny> {
  schema: S;
  /** What it does, for the operator: docs/configuration.md is generated from it (npm run docs:config). */
  about: string;
  /** Set by the host (CDK from the stack's resources, local mode from its stand-ins), not by the operator. */
  wired?: true;
  /** What it accepts, where the schema cannot say it (a check of its own). */
  accepts?: string;
  /** What applies when it is unset, where the schema has no default to say it. */
  fallback?: string;
}

export function setting<S extends z.ZodTypeAny>(schema: S, about: string, more: Pick<Setting, 'accepts' | 'fallback'> = {}): Setting<S> {
  return { schema, about, ...more };
}

function wired<S extends z.ZodTypeAny>(schema: S, about: string): Setting<S> {
  return { schema, about, wired: true };
}

export type ShapeOf<T extends Record<string, Setting>> = { [K in keyof T]: T[K]['schema'] };

export function shapeOf<T extends Record<string, Setting>>(settings: T): ShapeOf<T> {
  return Object.fromEntries(Object.entries(settings).map(([name, entry]) => [name, entry.schema])) as ShapeOf<T>;
}

/**
 * The configuration contract between the hosts (CDK, local) and the handlers, one entry per
 * variable. CDK sets these as Lambda environment variables; the local host runs each region's
 * requests inside `withEnv` so two regions can share one process with different tables and
 * endpoints, and passes the operator every entry that is not `wired` (lib/local/settings.ts).
 */
export const PLATFORM_SETTINGS = {
  PLATFORM_REGION: wired(z.enum(['us', 'eu']).default('us'), "The platform's own region label, used in ids and the `pod` field."),
  AWS_REGION: wired(z.string().min(1).default('us-east-1'), "The AWS region the handlers call (Lambda's own; local mode names the region it stands in for)."),
  TABLE_NAME: wired(z.string().min(1), 'The DynamoDB table holding all data.'),
  DYNAMODB_ENDPOINT: wired(optionalUrl, 'DynamoDB stand-in endpoint (local mode); unset on AWS.'),
  SES_ENDPOINT: wired(optionalUrl, 'SES stand-in endpoint (local mode); unset on AWS.'),
  SECRETSMANAGER_ENDPOINT: wired(optionalUrl, 'Secrets Manager stand-in endpoint; unset on AWS.'),
  S3_ENDPOINT: wired(optionalUrl, 'S3 stand-in endpoint, path-style (local mode); unset on AWS.'),
  SQS_ENDPOINT: wired(optionalUrl, 'SQS stand-in endpoint (local mode); unset on AWS, where queue URLs name their endpoint.'),
  SFN_ENDPOINT: wired(optionalUrl, 'Step Functions stand-in endpoint (local mode); unset on AWS.'),
  ACM_ENDPOINT: wired(optionalUrl, 'ACM stand-in endpoint (local mode); unset on AWS.'),
  APIGATEWAY_ENDPOINT: wired(optionalUrl, 'API Gateway (v2 management API) stand-in endpoint (local mode); unset on AWS.'),
  MESSAGES_BUCKET: wired(z.string().min(1).default('messages'), "The bucket holding accepted messages' MIME."),
  INSPECT_BUCKET: wired(z.string().min(1).default('inspections'), "Inspection tests' inputs and results, and optimized images (kept 90 days)."),
  SEND_QUEUE_URL: wired(optionalUrl, 'The send queue: one entry per accepted message, consumed by the send worker.'),
  SCHEDULE_STATE_MACHINE_ARN: wired(optionalStateMachineArn, 'The scheduled-delivery state machine (lib/workflows/scheduled-delivery.asl.json): `o:deliverytime` waits there.'),
  CERTIFICATE_STATE_MACHINE_ARN: wired(
    optionalStateMachineArn,
    'The tracking-certificate state machine (lib/workflows/tracking-certificate.asl.json): `POST`/`PUT /v2/x509/{host}` start it to issue a certificate, deleting a domain to release one.',
  ),
  TRACKING_API_ID: wired(optionalNonEmpty, "The HTTP API that serves tracking hosts over HTTPS: each certificate's custom domain name maps to it."),
  CERTIFICATE_POLL_SECONDS: setting(z.coerce.number().int().min(1).max(3600).default(30), 'How often a certificate job asks ACM whether it has issued the certificate, in seconds.'),
  CERTIFICATE_DEADLINE_SECONDS: setting(positiveInteger.default(72 * 3600), 'How long a certificate job waits for its validation record before it ends in `error`, in seconds (ACM\'s own 72 hours).'),
  TRACKING_HTTP_PORT: wired(optionalPort, "The port tracking hosts are served on over HTTP, written into tracking links when not 80 (local mode: the region's API port)."),
  TRACKING_HTTPS_PORT: wired(optionalPort, 'The port tracking hosts are served on over HTTPS, written into tracking links when not 443 (local mode: `TRACKING_TLS_PORT`).'),
  SES_CONFIGURATION_SET: wired(optionalString, 'The SES configuration set whose event destination feeds the notifications queue.'),
  SES_TLS_CONFIGURATION_SET: wired(
    optionalString,
    "Its twin with SES's TLS policy Require, for messages that must go over TLS (`o:require-tls`, the domain's `require_tls`): SES sets TLS per configuration set, not per message.",
  ),
  SES_EVENTS_TOPIC_ARN: wired(optionalString, 'The SNS topic SES publishes sending events to; the configuration sets made per dedicated IP publish there too.'),
  SEND_RETRY_BASE_SECONDS: setting(nonNegativeInteger.default(60), 'First retry delay of a send SES throttled, in seconds, doubling per attempt (at most 900).'),
  PUBLIC_API_URL: wired(optionalUrl, "This region's API base URL: tracking links use it until the domain's tracking CNAME verifies."),
  LIST_EXPANSION_PAGE: setting(
    positiveInteger.max(1000).default(200),
    "Members of a mailing list a post to it is expanded to per list worker invocation (each member's copy accepted for sending), up to 1,000; the next page is the next invocation's.",
  ),
  EVENT_TTL_DAYS: setting(z.coerce.number().int().positive().default(30), 'How long events are kept, in days.'),
  ENCRYPTION_KEY: wired(optionalString, 'The key that seals secrets at rest (DKIM private keys); local mode keeps one in the data dir.'),
  ENCRYPTION_KEY_SECRET_ID: wired(optionalString, 'The Secrets Manager secret holding that key (AWS).'),
  DNS_SERVERS: setting(optionalString, 'Resolvers domain verification asks, comma-separated `ip` or `ip:port`; set it in local mode to verify against real DNS.', {
    fallback: "each region's own loopback DNS locally, the system's resolvers on AWS",
  }),
  SANDBOX_RECIPIENTS: setting(
    z.enum(['authorized', 'any']).default('authorized'),
    "Whom sandbox domains send to: `authorized`, only the account's activated authorized recipients (`/v5/sandbox/auth_recipients`), as Mailgun's sandbox does; `any`, everyone. Local mode delivers nothing off the machine, so there it is `any` unless set.",
  ),
  DMARC_REPORTS_DOMAIN: setting(
    optionalNonEmpty,
    'The domain DMARC aggregate reports are mailed to (`rua=mailto:<id>@<domain>`), received through the inbound path; unset, no rua address is handed out (reports can still be uploaded). On AWS `-c dmarcReportsDomain=<domain>`.',
  ),
  SEED_INBOX_DOMAIN: setting(
    optionalNonEmpty,
    "The domain of seed lists' target addresses (`ibp-<id>@<domain>`), received through the inbound path; unset, seed lists cannot be made. On AWS `-c seedInboxDomain=<domain>` (verified in SES, MX at SES receiving).",
  ),
  PLACEMENT_STATE_MACHINE_ARN: wired(optionalNonEmpty, 'The placement poll workflow (lib/workflows/placement-poll.asl.json): a placement test, or a copy of the user\'s own send reaching a seed target, starts it.'),
  PLACEMENT_POLL_SECONDS: setting(positiveInteger.default(180), "Seconds between two polls of a placement test's seed mailboxes. On AWS `-c placementPollSeconds`."),
  PLACEMENT_DEADLINE_SECONDS: setting(positiveInteger.default(3600), 'Seconds after a placement result starts (the test is sent, or a copy of the user\'s own send reaches the target) by which seeds not found are `missing`. On AWS `-c placementDeadlineSeconds`.'),
  SPAMD_ADDRESS: setting(
    z.string().regex(/^[^:\s]+:\d+$/, '`host:port`').optional(),
    "SpamAssassin's spamd (`host:port`), the placement test's content score; unset (and no `RSPAMD_URL`), `spamassassin` is null. On AWS `-c spamdAddress`, reachable from the Lambdas.",
  ),
  RSPAMD_URL: setting(optionalUrl, "rspamd's base URL (`POST /checkv2`), used when `SPAMD_ADDRESS` is unset. On AWS `-c rspamdUrl`."),
  BLOCKLIST_RESOLVERS: setting(
    optionalString,
    'The resolvers blocklist lookups go through, comma-separated `ip` or `ip:port`: your own recursive resolvers, since Spamhaus and URIBL refuse queries from shared ones. Unset, no list is asked, and each reads `unknown` with that reason once its last answer is three check periods old (a listing stays shown). On AWS `-c blocklistResolvers`.',
  ),
  SPAMHAUS_DQS_KEY: setting(
    z.string().regex(/^[a-z0-9]{26}$/, 'a Spamhaus DQS key: 26 lower-case letters and digits').optional(),
    'A Spamhaus Data Query Service key: ZEN and DBL are then asked at `<key>.<list>.dq.spamhaus.net`. On AWS `-c spamhausDqsKey`.',
  ),
  BLOCKLIST_CHECK_INTERVAL: setting(
    positiveInteger.default(3600),
    'Seconds between two checks of a monitored IP or domain (the first is right after it is added); on AWS at least the 15-minute sweep, `-c blocklistCheckInterval`.',
  ),
  BLOCKLIST_STATE_MACHINE_ARN: wired(optionalNonEmpty, 'The blocklist check workflow (lib/workflows/blocklist-check.asl.json): the sweep and new subjects start it.'),
  ALERT_QUEUE_URL: wired(optionalUrl, 'The alerts delivery queue: one message per (alert, setting), consumed by the alerts delivery worker.'),
  ALERT_DEDUPE_WINDOW_SECONDS: setting(
    nonNegativeInteger.default(3600),
    'After an alert for an event, subject and list (a listing that came back), how long another for the same three is not delivered, in seconds.',
  ),
  ALERT_RETRY_SCALE: setting(z.coerce.number().positive().max(1).default(1), 'Multiplies the alerts webhook and Slack retry schedule (1m, 5m, 15m, 30m, 1h, 2h, 4h); tests shrink it.'),
  ALERTS_EMAIL_DOMAIN: setting(
    optionalNonEmpty,
    'The domain alert emails come from (`alerts@<domain>`), sent by whichever account holds it in the region. On AWS `-c alertsEmailDomain=<domain>`.',
    { fallback: "each account's own sandbox domain" },
  ),
  SLACK_API_URL: setting(z.string().url().default('https://slack.com/api'), "Slack's Web API, for alerts' Slack channel (tests point it at a loopback stand-in)."),
  // Its syntax is the spam-traps area's (functions/optimize/spamtraps/trap-list-syntax.ts), checked by
  // the hosts at start and at synth (lib/setting-checks.ts).
  SPAM_TRAP_LIST: setting(
    optionalString,
    'Your spam traps, `type:address-or-domain` separated by commas or new lines, `type` one of pristine, recycled, typo, harvested. On AWS `-c spamTrapList=...`.',
    { accepts: '`type:entry` items, `type` pristine, recycled, typo or harvested, `entry` an address or a domain' },
  ),
  HEALTH_SCORE_MIN_VOLUME: setting(positiveInteger.default(1000), "Processed messages in 30 days below which no health score is given (Mailgun's: 10,000)."),
  // The reputation guard (functions/reputation; docs/operations.md, "The reputation guard").
  REPUTATION_CHECK_INTERVAL: setting(
    positiveInteger.default(900),
    "Seconds between two runs of the reputation guard in local mode, when more often than its rule's 15 minutes (on AWS it runs every 15 minutes).",
  ),
  REPUTATION_WINDOW_HOURS: setting(
    z.coerce.number().int().min(1).max(24 * 60).default(24),
    "The reputation guard's rolling window, in whole hours of the analytics counters (AWS: `-c reputationWindowHours`).",
  ),
  REPUTATION_MIN_VOLUME: setting(
    positiveInteger.default(1000),
    "Messages delivered or bounced in the window below which an account's bounce and complaint rates do not count (AWS: `-c reputationMinVolume`).",
  ),
  REPUTATION_BOUNCE_WARNING_PERCENT: setting(
    percentage.default(2),
    'Hard bounces over messages delivered plus bounced (percent) above which an account and its parent are alerted (AWS: `-c reputationBounceWarningPercent`).',
  ),
  REPUTATION_BOUNCE_PAUSE_PERCENT: setting(
    percentage.default(4),
    "The bounce rate (percent) above which a subaccount's sending is turned off: the region's own SES bounce alarm level, so no one subaccount carries the SES account to review (AWS: `-c reputationBouncePausePercent`).",
  ),
  REPUTATION_COMPLAINT_WARNING_PERCENT: setting(
    percentage.default(0.05),
    'Complaints over messages delivered plus bounced (percent) above which an account and its parent are alerted (AWS: `-c reputationComplaintWarningPercent`).',
  ),
  REPUTATION_COMPLAINT_PAUSE_PERCENT: setting(
    percentage.default(0.1),
    "The complaint rate (percent) above which a subaccount's sending is turned off: SES's review level, so that one complaint in a thousand only warns (AWS: `-c reputationComplaintPausePercent`).",
  ),
  POSTMASTER_CREDENTIALS_SECRET_ID: wired(
    optionalNonEmpty,
    'The Secrets Manager secret holding the Google service account key of the Postmaster fetch (AWS, from `-c postmasterCredentialsSecretArn`; only the fetch job may read it).',
  ),
  POSTMASTER_SERVICE_ACCOUNT_JSON: setting(optionalNonEmpty, 'The Google service account key the Postmaster Tools fetch signs in with, the JSON itself; unset (and no file), the fetch does nothing and the routes say why.'),
  POSTMASTER_SERVICE_ACCOUNT_FILE: setting(optionalNonEmpty, 'A path to that JSON key file.'),
  POSTMASTER_IMPERSONATE: setting(z.string().email().optional(), 'A Google Workspace user the service account acts for (domain-wide delegation), when the domains were verified by that user.'),
  POSTMASTER_API_URL: setting(z.string().url().default('https://gmailpostmastertools.googleapis.com'), 'Postmaster Tools API base URL (tests point it at a loopback stand-in).'),
  POSTMASTER_TOKEN_URL: setting(optionalUrl, 'The OAuth 2.0 token endpoint.', { fallback: "the key's own `token_uri` (Google's)" }),
  POSTMASTER_FETCH_DAYS: setting(z.coerce.number().int().min(1).max(120).default(14), "Past days each daily fetch asks Google for (Google's figures arrive a day or two late and can be revised)."),
  SANDBOX_DOMAIN: setting(
    z.string().min(1).default('sandbox.localhost'),
    "Parent domain of every account's sandbox domain; verified once in SES, it covers all of them. On AWS `-c sandboxDomain=<domain>`.",
  ),
  TRACKING_CNAME_TARGET: setting(z.string().min(1).default('localhost'), "Where a domain's tracking CNAME (`<web_prefix>.<domain>`) must point: the API's host name."),
  MAX_MESSAGE_TTL: setting(z.coerce.number().int().positive().default(7 * 24 * 3600), "Upper bound of a domain's `message_ttl`, in seconds."),
  LOG_LEVEL: setting(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'), 'The request log level; `POWERTOOLS_LOG_LEVEL`, when set, wins.'),
  TAG_LIMIT_ACCOUNT: setting(nonNegativeInteger.default(100_000), "Distinct tags an account may have (Mailgun's default); later new tags are not registered."),
  TAG_LIMIT_DOMAIN: setting(nonNegativeInteger.default(20_000), "Distinct tags a domain may have (Mailgun's default), for `/v3/{domain}/tags`."),
  INBOUND_ACTION_QUEUE_URL: wired(optionalUrl, 'Inbound route actions (forward, store notifications): one message per action, retried on the webhook schedule.'),
  WEBHOOK_QUEUE_URL: wired(optionalUrl, 'The webhook delivery queue: one message per (event, URL).'),
  LIST_QUEUE_URL: wired(optionalUrl, 'The list queue: list-post expansion pages and bulk member uploads.'),
  IP_JOB_QUEUE_URL: wired(optionalUrl, "IP pool work done after the reply (moving a deleted pool's domains, an IP on or off every domain)."),
  INSPECT_QUEUE_URL: wired(optionalUrl, 'The inspection queue: one message per test run.'),
  PREVIEW_STATE_MACHINE_ARN: wired(optionalNonEmpty, "The email preview workflow (lib/workflows/email-preview.asl.json): one execution renders a test's clients."),
  PREVIEW_EXPORT_STATE_MACHINE_ARN: wired(optionalNonEmpty, "The preview export workflow (lib/workflows/preview-export.asl.json): one execution zips a test's screenshots."),
  PREVIEW_INBOX_DOMAIN: setting(
    optionalNonEmpty,
    "The domain of preview addresses (`POST /v2/preview/address`): mail received for it becomes preview tests. It must receive through the region's SES receipt rule (MX to SES, verified); unset, the address routes say previews by email are not configured. On AWS `-c previewInboxDomain=<domain>`.",
  ),
  PREVIEW_REAL_CLIENTS: setting(
    z.enum(['emailonacid']).optional(),
    "The real-client preview tier: `emailonacid` adds Email on Acid's clients to the catalog, screenshotted in real mail clients; off while its credentials are missing. On AWS `-c previewRealClients=emailonacid -c eoaCredentialsSecretArn=<arn>`.",
  ),
  EOA_API_URL: setting(z.string().url().default('https://api.emailonacid.com/v5'), "Email on Acid's API base URL."),
  EOA_CREDENTIALS_SECRET_ID: wired(optionalNonEmpty, "Email on Acid's credentials on AWS: a Secrets Manager secret (JSON `apiKey`, `password`)."),
  EOA_API_KEY: setting(optionalNonEmpty, "Email on Acid's API key (local mode)."),
  EOA_PASSWORD: setting(optionalNonEmpty, "Email on Acid's password (local mode)."),
  PREVIEW_REAL_POLL_SECONDS: setting(z.coerce.number().positive().max(60).default(10), 'How often a render task asks the real-client service whether a client is done, in seconds.'),
  CHROMIUM_PATH: setting(
    optionalNonEmpty,
    "The Chromium that renders previews, where the `@sparticuz/chromium` build (x86-64 Linux) does not run: Debian's `/usr/bin/chromium` or a Chrome.",
    { fallback: 'the `@sparticuz/chromium` build `npm ci` installs' },
  ),
  // Off on AWS, so that a URL cannot turn the platform into a proxy into its own network (SSRF);
  // private, link-local and metadata addresses stay refused whatever it says
  // (functions/webhooks/address-policy.ts).
  WEBHOOK_ALLOW_LOOPBACK_URLS: setting(
    z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => (value === undefined ? undefined : value === 'true')),
    "Let the addresses users give (webhook and alert URLs, routes' forwards, inspection fetches, seed mailboxes' IMAP hosts) reach this machine's loopback (127.0.0.0/8, ::1), and accept names that do not resolve yet; never private, link-local or metadata addresses.",
    { fallback: '`WEBHOOK_ALLOW_PRIVATE_URLS` decides' },
  ),
  // Loopback only, whatever its name says: private and link-local networks, the metadata service
  // among them, stay closed to user-given addresses.
  WEBHOOK_ALLOW_PRIVATE_URLS: setting(
    z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
    'The older name of `WEBHOOK_ALLOW_LOOPBACK_URLS`, used when that is unset, kept so existing configurations still start; it no longer opens private networks.',
  ),
  AUTH_FAILURE_WINDOW_SECONDS: setting(
    z.coerce.number().int().min(1).max(86_400).default(900),
    'Failed sign-ins over SMTP AUTH and the API\'s Basic auth are counted per login (an SMTP login, an API key id) and per source address (an IPv6 /64) in the table, across connections and containers (functions/platform/auth-throttle.ts). A count lasts this many seconds after its latest failure; a login or address that reaches its limit is refused, right password or not, until then (SMTP 454, the API 429 with Retry-After).',
  ),
  AUTH_FAILURE_LIMIT_PER_LOGIN: setting(z.coerce.number().int().min(1).max(1000).default(10), 'Failures of one SMTP login or one API key id within the window that lock it.'),
  AUTH_FAILURE_LIMIT_PER_SOURCE: setting(z.coerce.number().int().min(1).max(1000).default(30), 'Failures from one source address within the window that lock it (several users may share one).'),
  AUTH_FAILURE_SLOW_AFTER: setting(
    z.coerce.number().int().min(0).max(1000).default(3),
    'Failures of a login or address after which each further failed SMTP AUTH waits twice as long as the last (up to 16 times).',
  ),
  MONTHLY_LIMIT_CACHE_SECONDS: setting(
    z.coerce.number().min(0).default(30),
    "How long a process reuses an account's monthly limit setting it read, in seconds (the count itself is always exact); 0 reads every time.",
  ),
  MONTHLY_LIMIT_SHARDS: setting(
    z.coerce.number().int().min(1).max(32).default(1),
    "Items a capped account's monthly count is spread over, each about 1,000 capped sends a second on DynamoDB; change it between months (docs/capacity.md; AWS: `-c monthlyLimitShards`).",
  ),
  EVENT_SHARDS: setting(
    z.coerce.number().int().min(1).max(32).default(1),
    "Partitions each domain's events of a UTC day (and each account's of an hour, on the index) are spread over, each about 1,000 writes a second on DynamoDB, so about 300 to 500 messages a second per domain per shard; reads query every shard. Raise it freely; lowering it hides events in the dropped shards until they expire (docs/capacity.md; AWS: `-c eventShards`).",
  ),
  WEBHOOK_CONFIG_CACHE_SECONDS: setting(
    z.coerce.number().min(0).default(60),
    "How long a process reuses a webhook configuration it read, in seconds (Mailgun: changes may take minutes); 0 reads every time.",
  ),
  WEBHOOK_RETRY_SCALE: setting(z.coerce.number().positive().max(1).default(1), "Multiplies Mailgun's webhook retry schedule (10m ... 4h); tests shrink it."),
  WEBHOOK_TIMEOUT_MS: setting(z.coerce.number().int().min(100).max(60_000).default(10_000), 'How long one webhook POST may take, connection to last byte, in milliseconds, before it counts as failed.'),
};

export const platformEnvSchema = z.object(shapeOf(PLATFORM_SETTINGS));

export type PlatformEnv = z.infer<typeof platformEnvSchema>;

type RawEnv = Record<string, string | undefined>;

const scoped = new AsyncLocalStorage<RawEnv>();
const parsed = new WeakMap<RawEnv, PlatformEnv>();

/** Runs `fn` with `raw` as the environment seen by `env()` (used by the local host, one per region). */
export function withEnv<T>(raw: RawEnv, fn: () => T): T {
  return scoped.run(raw, fn);
}

/** The raw environment in force: the scoped one, or the process's. */
function rawEnv(): RawEnv {
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
