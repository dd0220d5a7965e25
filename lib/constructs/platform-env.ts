import { platformEnvSchema, type PlatformEnv } from '../../functions/platform/env';

export type PlatformRegion = PlatformEnv['PLATFORM_REGION'];

export interface PlatformEnvSettings {
  platformRegion: PlatformRegion;
  tableName: string;
  encryptionKeySecretId: string;
  sandboxDomain: string;
  trackingCnameTarget: string;
  logLevel?: PlatformEnv['LOG_LEVEL'];
}

/**
 * The Lambda environment of every platform handler, per the handlers' own contract
 * (functions/platform/env.ts). AWS_REGION is Lambda's to set, not ours.
 */
export function platformEnvironment(settings: PlatformEnvSettings): Record<string, string> {
  const contract = {
    PLATFORM_REGION: settings.platformRegion,
    TABLE_NAME: settings.tableName,
    ENCRYPTION_KEY_SECRET_ID: settings.encryptionKeySecretId,
    SANDBOX_DOMAIN: settings.sandboxDomain,
    TRACKING_CNAME_TARGET: settings.trackingCnameTarget,
    LOG_LEVEL: settings.logLevel ?? 'INFO',
  } satisfies Partial<Record<keyof PlatformEnv, string>>;
  // A value the handlers would reject fails the synth, not the first request after a deploy.
  platformEnvSchema.parse(contract);
  return { ...contract, POWERTOOLS_SERVICE_NAME: 'mailplane', NODE_OPTIONS: '--enable-source-maps' };
}
