import '../lib/local/sdk-node-notice';
import { startLocal } from '../lib/local/platform';

/**
 * `npm start`: both regions on localhost over embedded stand-ins.
 * PORT (3000), EU_PORT (PORT+1), TRACKING_TLS_PORT (PORT+443), EU_TRACKING_TLS_PORT
 * (TRACKING_TLS_PORT+1), SMTP_PORT (2587, STARTTLS) and SMTPS_PORT (2465, implicit TLS) and INBOUND_SMTP_PORT
 * (2525, SES receiving's stand-in) for the US region (EU: each + 1), HOST (127.0.0.1), DATA_DIR (.data), BOOTSTRAP_API_KEY, and any handler
 * setting listed in PASSED_SETTINGS from the environment.
 */
const PASSED_SETTINGS = [
  'DNS_SERVERS',
  'SANDBOX_DOMAIN',
  'TRACKING_CNAME_TARGET',
  'CERTIFICATE_POLL_SECONDS',
  'CERTIFICATE_DEADLINE_SECONDS',
  'MAX_MESSAGE_TTL',
  'EVENT_TTL_DAYS',
  'TAG_LIMIT_ACCOUNT',
  'TAG_LIMIT_DOMAIN',
  'WEBHOOK_ALLOW_LOOPBACK_URLS',
  'WEBHOOK_ALLOW_PRIVATE_URLS',
  'WEBHOOK_RETRY_SCALE',
  'CHROMIUM_PATH',
  'PREVIEW_REAL_CLIENTS',
  'EOA_API_URL',
  'EOA_API_KEY',
  'EOA_PASSWORD',
  'PREVIEW_REAL_POLL_SECONDS',
  'PREVIEW_INBOX_DOMAIN',
  'WEBHOOK_TIMEOUT_MS',
  'LOCAL_DEDICATED_IPS',
  'BLOCKLIST_RESOLVERS',
  'SPAMHAUS_DQS_KEY',
  'BLOCKLIST_CHECK_INTERVAL',
  'SPAM_TRAP_LIST',
  'POSTMASTER_SERVICE_ACCOUNT_FILE',
  'POSTMASTER_SERVICE_ACCOUNT_JSON',
  'POSTMASTER_IMPERSONATE',
  'POSTMASTER_API_URL',
  'POSTMASTER_TOKEN_URL',
  'POSTMASTER_FETCH_DAYS',
  'SEED_INBOX_DOMAIN',
  'PLACEMENT_POLL_SECONDS',
  'PLACEMENT_DEADLINE_SECONDS',
  'SPAMD_ADDRESS',
  'RSPAMD_URL',
  'SANDBOX_RECIPIENTS',
  'MONTHLY_LIMIT_SHARDS',
  // The reputation guard (docs/operations.md).
  'REPUTATION_CHECK_INTERVAL',
  'REPUTATION_WINDOW_HOURS',
  'REPUTATION_MIN_VOLUME',
  'REPUTATION_BOUNCE_WARNING_PERCENT',
  'REPUTATION_BOUNCE_PAUSE_PERCENT',
  'REPUTATION_COMPLAINT_WARNING_PERCENT',
  'REPUTATION_COMPLAINT_PAUSE_PERCENT',
] as const;

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const optionalPort = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const platform = await startLocal({
    port,
    euPort: optionalPort('EU_PORT'),
    trackingTlsPort: optionalPort('TRACKING_TLS_PORT'),
    euTrackingTlsPort: optionalPort('EU_TRACKING_TLS_PORT'),
    host: process.env.HOST,
    smtpPort: process.env.SMTP_PORT ? Number(process.env.SMTP_PORT) : undefined,
    smtpsPort: process.env.SMTPS_PORT ? Number(process.env.SMTPS_PORT) : undefined,
    inboundSmtpPort: optionalPort('INBOUND_SMTP_PORT'),
    dataDir: process.env.DATA_DIR ?? '.data',
    bootstrapApiKey: process.env.BOOTSTRAP_API_KEY || undefined,
    env: Object.fromEntries(PASSED_SETTINGS.map((name) => [name, process.env[name]])),
  });
  const lines = [
    'Mailplane is running (local mode).',
    `  US API: ${platform.us.url}`,
    `  EU API: ${platform.eu.url}`,
    `  US SMTP: ${platform.us.smtp.host}:${platform.us.smtp.port} (STARTTLS), ${platform.us.smtp.host}:${platform.us.smtp.securePort} (TLS)`,
    `  EU SMTP: ${platform.eu.smtp.host}:${platform.eu.smtp.port} (STARTTLS), ${platform.eu.smtp.host}:${platform.eu.smtp.securePort} (TLS)`,
    `  Inbound mail (SES receiving stand-in, any domain of the region): US ${platform.us.inboundSmtp.host}:${platform.us.inboundSmtp.port}, EU ${platform.eu.inboundSmtp.host}:${platform.eu.inboundSmtp.port}`,
    `  Admin API key: ${platform.adminKey}${platform.adminKeyGenerated ? ' (generated and saved in the data dir)' : ''}`,
    `  Tracking hosts over HTTPS (once their certificate is active): US port ${platform.us.trackingTlsPort}, EU port ${platform.eu.trackingTlsPort}`,
    `  Local CA (trust it for the tracking HTTPS and SMTP listeners): ${platform.ca.certificatePath ?? '(in memory)'}`,
    ...(platform.us.dns.file ? [`  DNS records you publish by hand (tracking CNAMEs, certificate validation): ${platform.us.dns.file}, ${platform.eu.dns.file}`] : []),
    `  Try: curl -u api:${platform.adminKey} ${platform.us.url}/v4/domains`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    // A second signal while requests drain means: stop now. Accepted work is on disk either way.
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`\n${signal}: stopping (letting requests in flight finish; again to stop at once)...\n`);
    await platform.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
