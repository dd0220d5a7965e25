import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AUTHORIZER_CACHE_SECONDS } from '../../functions/authorizer/cache';
import { localCa, type LocalCa } from './local-ca';
import { startRegion, type RegionHost } from './region-host';
import type { ConsoleRegion } from './console-host';
import { DEFAULT_PORTS } from './settings';

export interface LocalOptions {
  /** US port (0 = any free port); EU defaults to port + 1 (or any free port when port is 0). */
  port?: number;
  euPort?: number;
  host?: string;
  /**
   * SMTP submission of the US region: STARTTLS on smtpPort (default 2587), implicit TLS on
   * smtpsPort (default 2465); the EU region listens on each plus one. 0 picks free ports (the
   * default when `port` is 0).
   */
  smtpPort?: number;
  smtpsPort?: number;
  /**
   * The US region's inbound SMTP stand-in for SES receiving (INBOUND_SMTP_PORT, default 2525); EU
   * listens on it + 1. 0 picks a free port (the default when `port` is 0).
   */
  inboundSmtpPort?: number;
  /** Where data persists; `null` keeps everything in memory (tests). */
  dataDir?: string | null;
  /** The primary account's admin key in both regions; generated and saved when absent. */
  bootstrapApiKey?: string;
  /** Reuse of authorizer verdicts per Authorization header; defaults to the deployed API's. */
  authorizerCacheSeconds?: number;
  /** The send worker's timeout in seconds, from which the send queue's clocks follow (tests shorten it). */
  sendWorkerTimeoutSeconds?: number;
  /** Step Functions Retry intervals in ms (tests); default: as the definitions say. */
  workflowRetryIntervalMs?: number;
  /**
   * Validate each workflow definition as Step Functions does when it creates the state machine
   * (default). About a second per region; the tests' hosts skip it, as their run validates every
   * definition once (test/unit/local/workflow-runner.test.ts).
   */
  validateWorkflows?: boolean;
  /** The period of the periodic jobs (functions/schedules.ts) in ms (tests); default: each job's own. */
  periodicJobEveryMs?: number;
  /**
   * The US tracking hosts' HTTPS port (TRACKING_TLS_PORT); EU defaults to it + 1. Default PORT + 443
   * (3443), or any free port when port is 0.
   */
  trackingTlsPort?: number;
  euTrackingTlsPort?: number;
  /** The ACM stand-in's certificate lifetime and renewal window in ms (tests); default 395 and 60 days. */
  certificateValidityMs?: number;
  certificateRenewBeforeMs?: number;
  /**
   * The event stream's batching window in seconds; default a short local one (region-host.ts),
   * EVENT_STREAM_BATCHING_WINDOW_SECONDS for the deployed one (benchmarks).
   */
  eventStreamBatchingWindowSeconds?: number;
  /** Environment passed to the handlers of both regions (DNS_SERVERS, SANDBOX_DOMAIN, ...). */
  env?: Record<string, string | undefined>;
}

export interface LocalPlatform {
  us: RegionHost;
  eu: RegionHost;
  adminKey: string;
  /** True when this start generated the admin key (first start on this data dir). */
  adminKeyGenerated: boolean;
  /** The root every certificate local mode issues chains to (tracking hosts, SMTP listeners). */
  ca: LocalCa;
  close(): Promise<void>;
}

/** A secret read from the data dir, or made and saved there (owner-only) on first start. */
function persistentSecret(dataDir: string | null, file: string, make: () => string): { value: string; created: boolean } {
  if (!dataDir) return { value: make(), created: true };
  const path = join(dataDir, file);
  if (existsSync(path)) return { value: readFileSync(path, 'utf8').trim(), created: false };
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return { value, created: true };
}

function processExists(pid: number): boolean {
  try {
    return process.kill(pid, 0);
  } catch {
    return false;
  }
}

/**
 * LevelDB allows one process per database; a second start on the same data dir would wait on its
 * lock forever, so say so at once instead.
 */
function lockDataDir(dataDir: string): void {
  const pidFile = join(dataDir, 'local.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (pid > 0 && pid !== process.pid && processExists(pid)) throw new Error(`The data dir ${dataDir} is in use by process ${pid}; stop it or set DATA_DIR to another folder`);
  }
  writeFileSync(pidFile, String(process.pid));
  process.once('exit', () => rmSync(pidFile, { force: true }));
}

const newApiKey = () => `${randomBytes(16).toString('hex')}-${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}`;

/**
 * Local mode never talks to AWS. The SDK clients still sign, the stand-ins ignore it, and s3rver
 * accepts only its own fixed credentials; real ones from the shell are not wanted here. startLocal
 * sets them for its process; a process that only talks to another's stand-ins calls this itself.
 */
export function useStandInCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}

/** Both regions on one machine, each over its own stand-ins, with the very handlers Lambda runs. */
export async function startLocal(options: LocalOptions = {}): Promise<LocalPlatform> {
  useStandInCredentials();
  const dataDir = options.dataDir === null ? null : resolve(options.dataDir ?? '.data');
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    lockDataDir(dataDir);
  }
  const port = options.port ?? DEFAULT_PORTS.api;
  const euPort = options.euPort ?? (port === 0 ? 0 : port + 1);
  const host = options.host ?? '127.0.0.1';
  const smtpPort = options.smtpPort ?? (port === 0 ? 0 : DEFAULT_PORTS.smtp);
  const smtpsPort = options.smtpsPort ?? (port === 0 ? 0 : DEFAULT_PORTS.smtps);
  const inboundSmtpPort = options.inboundSmtpPort ?? (port === 0 ? 0 : DEFAULT_PORTS.inboundSmtp);
  const nextTo = (p: number) => (p === 0 ? 0 : p + 1);
  const tlsPort = options.trackingTlsPort ?? (port === 0 ? 0 : port + DEFAULT_PORTS.trackingTlsAbovePort);
  const euTlsPort = options.euTrackingTlsPort ?? (tlsPort === 0 ? 0 : tlsPort + 1);

  const admin = options.bootstrapApiKey
    ? { value: options.bootstrapApiKey, created: false }
    : persistentSecret(dataDir, 'admin-api-key', newApiKey);
  const encryptionKey = persistentSecret(dataDir, 'encryption-key', () => randomBytes(32).toString('base64')).value;
  const ca = localCa(dataDir);

  // The console of either region switches between both: their URLs, once both have started.
  const consoleRegions: ConsoleRegion[] = [];
  const start = (region: 'us' | 'eu', regionPort: number, trackingTlsPort: number) =>
    startRegion({
      region,
      port: regionPort,
      trackingTlsPort,
      certificateValidityMs: options.certificateValidityMs,
      certificateRenewBeforeMs: options.certificateRenewBeforeMs,
      host,
      smtp: region === 'us' ? { port: smtpPort, securePort: smtpsPort } : { port: nextTo(smtpPort), securePort: nextTo(smtpsPort) },
      inboundSmtpPort: region === 'us' ? inboundSmtpPort : nextTo(inboundSmtpPort),
      dataDir: dataDir ? join(dataDir, region) : undefined,
      adminKey: admin.value,
      encryptionKey,
      ca,
      authorizerCacheSeconds: options.authorizerCacheSeconds ?? AUTHORIZER_CACHE_SECONDS,
      sendWorkerTimeoutSeconds: options.sendWorkerTimeoutSeconds,
      workflowRetryIntervalMs: options.workflowRetryIntervalMs,
      validateWorkflows: options.validateWorkflows,
      periodicJobEveryMs: options.periodicJobEveryMs,
      eventStreamBatchingWindowSeconds: options.eventStreamBatchingWindowSeconds,
      env: options.env ?? {},
      consoleRegions: () => consoleRegions,
    });
  const us = await start('us', port, tlsPort);
  let eu: RegionHost;
  try {
    eu = await start('eu', euPort, euTlsPort);
  } catch (error) {
    await us.close();
    throw error;
  }
  consoleRegions.push({ id: 'us', label: 'US', api: us.url }, { id: 'eu', label: 'EU', api: eu.url });
  return {
    us,
    eu,
    adminKey: admin.value,
    adminKeyGenerated: admin.created,
    ca,
    close: async () => {
      await Promise.all([us.close(), eu.close()]);
    },
  };
}

