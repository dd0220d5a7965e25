import { env, type PlatformEnv } from '../platform/env';

/** What the guard judges by (REPUTATION_* in functions/platform/env.ts): percentages, hours, messages. */
export interface GuardLevels {
  windowHours: number;
  minVolume: number;
  bounce: { warning: number; pause: number };
  complaint: { warning: number; pause: number };
}

export function guardLevels(settings: PlatformEnv = env()): GuardLevels {
  const levels: GuardLevels = {
    windowHours: settings.REPUTATION_WINDOW_HOURS,
    minVolume: settings.REPUTATION_MIN_VOLUME,
    bounce: { warning: settings.REPUTATION_BOUNCE_WARNING_PERCENT, pause: settings.REPUTATION_BOUNCE_PAUSE_PERCENT },
    complaint: { warning: settings.REPUTATION_COMPLAINT_WARNING_PERCENT, pause: settings.REPUTATION_COMPLAINT_PAUSE_PERCENT },
  };
  for (const measure of ['bounce', 'complaint'] as const) {
    const { warning, pause } = levels[measure];
    if (warning >= pause) throw new Error(`REPUTATION_${measure.toUpperCase()}_WARNING_PERCENT (${warning}) must be below REPUTATION_${measure.toUpperCase()}_PAUSE_PERCENT (${pause})`);
  }
  return levels;
}
