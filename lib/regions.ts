import type { PlatformEnv } from '../functions/platform/env';

export type PlatformRegion = PlatformEnv['PLATFORM_REGION'];

/** The AWS region each platform region deploys to unless told otherwise, and local mode's. */
export const DEFAULT_AWS_REGIONS: Readonly<Record<PlatformRegion, string>> = { us: 'us-east-1', eu: 'eu-west-1' };
