import { z } from 'zod/v3';
import type { PlatformEnv, Setting } from '../functions/platform/env';
import { parseTrapList } from '../functions/optimize/spamtraps/trap-list-syntax';

/**
 * Checks of a handler setting that belong to the area reading it: the env schema
 * (functions/platform/env.ts) takes these as plain strings, since the platform imports no area,
 * and the hosts run the area's own check before anything starts: local mode when it reads its
 * settings (lib/local/settings.ts), CDK at synth (lib/constructs/platform-env.ts). A check throws
 * an Error whose message says what is wrong, without repeating the value.
 */
export const AREA_SETTING_CHECKS: Partial<Record<keyof PlatformEnv, (value: string) => unknown>> = {
  SPAM_TRAP_LIST: parseTrapList,
};

/** `settings` with each one's area check added to its schema (an unset value is not checked). */
export function withAreaChecks<T extends Record<string, Setting>>(settings: T): T {
  return Object.fromEntries(
    Object.entries(settings).map(([name, entry]) => {
      const check = AREA_SETTING_CHECKS[name as keyof PlatformEnv];
      if (!check) return [name, entry];
      const schema = entry.schema.superRefine((value, ctx) => {
        if (typeof value !== 'string') return;
        try {
          check(value);
        } catch (error) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
        }
      });
      return [name, { ...entry, schema }];
    }),
  ) as T;
}
