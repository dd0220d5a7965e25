import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod/v3';
import { PLATFORM_SETTINGS, setting, shapeOf, type Setting, type ShapeOf } from '../../functions/platform/env';
import { withAreaChecks } from '../setting-checks';
import { acceptedValues } from '../setting-values';
import type { PlatformRegion } from '../regions';

const port = () => z.coerce.number().int().min(0).max(65535).optional();
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;

/**
 * Where local mode listens when not told otherwise: the US region on these, the EU region on each
 * plus one; with PORT=0 every listener not named picks a free port.
 */
export const DEFAULT_PORTS = { api: 3000, smtp: 2587, smtps: 2465, inboundSmtp: 2525, trackingTlsAbovePort: 443 };

/** The dedicated IPs the SES stand-in leases to each region: documentation-range addresses (RFC 5737), so nothing real is named. */
export const DEFAULT_DEDICATED_IPS: Record<PlatformRegion, string> = { us: '192.0.2.10,192.0.2.11', eu: '198.51.100.10,198.51.100.11' };

const portFallback = (port: number) => `\`${port}\` (\`0\` when \`PORT\` is \`0\`)`;

/** Local mode's own settings (`npm start`): where it listens and where it keeps its data. */
export const LOCAL_HOST_SETTINGS = {
  PORT: setting(z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.api), 'US region API port; `0` picks a free port for it and for every listener not set.'),
  EU_PORT: setting(port(), 'EU region API port.', { fallback: '`PORT`+1' }),
  TRACKING_TLS_PORT: setting(port(), 'US tracking hosts over HTTPS, one certificate per host by SNI.', { fallback: `\`PORT\`+${DEFAULT_PORTS.trackingTlsAbovePort}` }),
  EU_TRACKING_TLS_PORT: setting(port(), 'EU tracking hosts over HTTPS.', { fallback: '`TRACKING_TLS_PORT`+1' }),
  SMTP_PORT: setting(port(), 'SMTP submission with STARTTLS, US; the EU region listens on it + 1.', { fallback: portFallback(DEFAULT_PORTS.smtp) }),
  SMTPS_PORT: setting(port(), 'SMTP submission over implicit TLS, US; the EU region listens on it + 1.', { fallback: portFallback(DEFAULT_PORTS.smtps) }),
  INBOUND_SMTP_PORT: setting(port(), "SES receiving's stand-in, US: mail for the region's domains; the EU region listens on it + 1.", {
    fallback: portFallback(DEFAULT_PORTS.inboundSmtp),
  }),
  HOST: setting(z.string().min(1).default('127.0.0.1'), 'The interface every listener binds to.'),
  DATA_DIR: setting(
    z.string().min(1).default('.data'),
    'Where both regions keep their data across restarts (one process at a time); delivered mail is in `<DATA_DIR>/us/outbox` and `<DATA_DIR>/eu/outbox`.',
  ),
  BOOTSTRAP_API_KEY: setting(z.string().min(1).optional(), "The primary account's admin key in both regions.", { fallback: 'generated on first start and saved in the data dir' }),
  LOCAL_DEDICATED_IPS: setting(z.string().min(1).optional(), 'The dedicated IPs the SES stand-in leases to each region, comma-separated.', {
    fallback: `US \`${DEFAULT_DEDICATED_IPS.us}\`, EU \`${DEFAULT_DEDICATED_IPS.eu}\``,
  }),
  POWERTOOLS_LOG_LEVEL: setting(
    z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(LOG_LEVELS)).optional(),
    'The request log level, over `LOG_LEVEL`; `SILENT` mutes it.',
  ),
};

type PlatformSettingName = keyof typeof PLATFORM_SETTINGS;

/**
 * The handler settings local mode takes from its environment: every one the operator sets, that
 * is, every one the host does not wire itself (tables, endpoints, queues, state machines).
 */
export const PASSED_SETTINGS = (Object.keys(PLATFORM_SETTINGS) as PlatformSettingName[]).filter((name) => !(PLATFORM_SETTINGS[name] as Setting).wired);

/**
 * Where local mode's defaults differ from the handlers' own (which are AWS's): set unless the
 * operator sets them.
 */
export const LOCAL_DEFAULTS: Partial<Record<PlatformSettingName, string>> = {
  // Nothing leaves the machine (the SES stand-in delivers to the outbox), so Mailgun's sandbox
  // rule protects no one here, and a newcomer's first send from the sandbox to any address works.
  SANDBOX_RECIPIENTS: 'any',
  // Receivers on this machine are the point of local mode (loopback only: never private,
  // link-local or metadata addresses); and changes to webhooks apply at once.
  WEBHOOK_ALLOW_LOOPBACK_URLS: 'true',
  WEBHOOK_CONFIG_CACHE_SECONDS: '0',
  // The local DNS answers at once: a certificate is issued within moments of its record appearing.
  CERTIFICATE_POLL_SECONDS: '2',
  // Preview addresses: mail to the inbound SMTP stand-in for this domain becomes preview tests.
  PREVIEW_INBOX_DOMAIN: 'preview.localhost',
  // rua addresses: DMARC reports mailed to the inbound SMTP stand-in for this domain are ingested.
  DMARC_REPORTS_DOMAIN: 'dmarc.localhost',
  // Seed list targets: mail to the inbound SMTP stand-in for this domain starts placement results.
  SEED_INBOX_DOMAIN: 'seeds.localhost',
};

/** A setting local mode cannot start with: `message` is the one line to show. */
export class SettingError extends Error {}

export const DOT_ENV = '.env';

/**
 * Reads `<dir>/.env` into process.env, leaving every variable the environment already has alone
 * (the real environment wins). Answers the names it set, so that an error can say where a value
 * came from.
 */
export function loadDotEnv(dir: string): Set<string> {
  const path = join(dir, DOT_ENV);
  const set = new Set<string>();
  if (!existsSync(path)) return set;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
    if (process.env[name] !== undefined) continue;
    process.env[name] = value;
    set.add(name);
  }
  return set;
}

type Environment = Record<string, string | undefined>;

/** Validates `settings` against `environment`, blank meaning unset; the first invalid one stops it. */
function parseSettings<T extends Record<string, Setting>>(settings: T, environment: Environment, fromDotEnv: Set<string>): z.infer<z.ZodObject<ShapeOf<T>>> {
  const given = Object.fromEntries(Object.keys(settings).flatMap((name) => (environment[name]?.trim() ? [[name, environment[name]]] : [])));
  const result = z.object(shapeOf(settings)).safeParse(given);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0]);
  const origin = fromDotEnv.has(name) ? ` (from ${DOT_ENV})` : '';
  // A check of its own says what is wrong; otherwise the form it takes says it best.
  const detail = issue.code === 'custom' ? `: ${issue.message}` : '';
  throw new SettingError(`${name}${origin} is not valid: it takes ${acceptedValues(settings[name]!)}${detail}.`);
}

/**
 * Local mode's options from an environment: its own settings, and every handler setting it
 * passes on. Invalid values stop it with a SettingError naming the variable and what it takes;
 * the values themselves are never repeated, since some are secrets. They are startLocal's options
 * (lib/local/platform.ts, which bin/local.ts hands them to): this module sits below the host, so
 * the type is checked where they are passed, not named here.
 */
export function readLocalSettings(environment: Environment, fromDotEnv = new Set<string>()) {
  const host = parseSettings(LOCAL_HOST_SETTINGS, environment, fromDotEnv);
  const passed: Record<string, Setting> = Object.fromEntries(PASSED_SETTINGS.map((name) => [name, PLATFORM_SETTINGS[name]]));
  parseSettings(withAreaChecks(passed), environment, fromDotEnv);
  return {
    port: host.PORT,
    euPort: host.EU_PORT,
    trackingTlsPort: host.TRACKING_TLS_PORT,
    euTrackingTlsPort: host.EU_TRACKING_TLS_PORT,
    smtpPort: host.SMTP_PORT,
    smtpsPort: host.SMTPS_PORT,
    inboundSmtpPort: host.INBOUND_SMTP_PORT,
    host: host.HOST,
    dataDir: host.DATA_DIR,
    bootstrapApiKey: host.BOOTSTRAP_API_KEY,
    env: Object.fromEntries(
      [...PASSED_SETTINGS, 'LOCAL_DEDICATED_IPS'].flatMap((name) => (environment[name]?.trim() ? [[name, environment[name]]] : [])),
    ),
  };
}
