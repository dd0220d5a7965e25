import type { LocalPlatform, startLocal as StartLocal } from '../lib/local/platform';
import { buildConsoleIfStale } from '../lib/console-build';
import { OUTBOX_PATH } from '../lib/local/outbox-api';
import { DOT_ENV, loadDotEnv, readLocalSettings, SettingError } from '../lib/local/settings';

/**
 * `npm start`: both regions on localhost over embedded stand-ins, configured by the environment
 * and a `.env` file in the working directory (the environment wins). Every setting, local mode's
 * own and the handlers', is in docs/configuration.md (generated from lib/local/settings.ts and
 * functions/platform/env.ts).
 */

/** What the sandbox domains may send to, in words, and where that rule comes from. */
function sandboxRule(platform: LocalPlatform, setByOperator: boolean): string {
  const origin = setByOperator ? '' : ", local mode's default";
  return platform.us.env.SANDBOX_RECIPIENTS === 'any'
    ? `they send to anyone (SANDBOX_RECIPIENTS=any${origin}: nothing leaves this machine; set it to authorized for Mailgun's rule)`
    : "they send only to the account's activated authorized recipients, as Mailgun's do (SANDBOX_RECIPIENTS=authorized; add them with POST /v5/sandbox/auth_recipients)";
}

function banner(platform: LocalPlatform, fromDotEnv: Set<string>, sandboxRuleSet: boolean): string {
  const { us, eu } = platform;
  const lines = [
    'Mailplane is running (local mode).',
    `  Web console: ${us.url}/ (US), ${eu.url}/ (EU); sign in with the admin key below`,
    `  US API: ${us.url}`,
    `  EU API: ${eu.url}`,
    `  Admin API key: ${platform.adminKey}${platform.adminKeyGenerated ? ' (generated and saved in the data dir)' : ''}`,
    `  Sandbox domains: US ${us.sandboxDomain}, EU ${eu.sandboxDomain}; ${sandboxRule(platform, sandboxRuleSet)}`,
    `  Delivered mail (the outbox; nothing leaves this machine): ${us.outboxDir}, ${eu.outboxDir} (one .eml per message), the console's Outbox page, and ${us.url}${OUTBOX_PATH} as JSON (with an API key)`,
    `  US SMTP: ${us.smtp.host}:${us.smtp.port} (STARTTLS), ${us.smtp.host}:${us.smtp.securePort} (TLS)`,
    `  EU SMTP: ${eu.smtp.host}:${eu.smtp.port} (STARTTLS), ${eu.smtp.host}:${eu.smtp.securePort} (TLS)`,
    `  Inbound mail (SES receiving stand-in, any domain of the region): US ${us.inboundSmtp.host}:${us.inboundSmtp.port}, EU ${eu.inboundSmtp.host}:${eu.inboundSmtp.port}`,
    `  Tracking hosts over HTTPS (once their certificate is active): US port ${us.trackingTlsPort}, EU port ${eu.trackingTlsPort}`,
    `  Local CA (trust it for the tracking HTTPS and SMTP listeners): ${platform.ca.certificatePath ?? '(in memory)'}`,
    ...(us.dns.file ? [`  DNS records you publish by hand (tracking CNAMEs, certificate validation): ${us.dns.file}, ${eu.dns.file}`] : []),
    `  Settings: the environment${fromDotEnv.size ? ` and ${DOT_ENV} (${fromDotEnv.size} read)` : ''}; every one is described in docs/configuration.md`,
    `  Try: curl -u api:${platform.adminKey} ${us.url}/v4/domains`,
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const fromDotEnv = loadDotEnv(process.cwd());
  const options = readLocalSettings(process.env, fromDotEnv);
  // Loaded once the settings hold: a mistyped value is reported before seconds of module loading.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  const { startLocal } = require('../lib/local/platform') as { startLocal: typeof StartLocal };
  // The web console, built when its sources are newer than the build (the first start of a clone).
  buildConsoleIfStale();
  const platform = await startLocal(options);
  process.stdout.write(banner(platform, fromDotEnv, options.env?.SANDBOX_RECIPIENTS !== undefined));

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
  // A setting the operator got wrong is one line saying which and what it takes; anything else is a fault.
  process.stderr.write(error instanceof SettingError ? `Cannot start: ${error.message}\n` : `Failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
