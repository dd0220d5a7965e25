import type { Figures } from './figures';
import type { GuardLevels } from './levels';

export type Level = 'ok' | 'warning' | 'pause';

/** Where an account's figures stand against the levels, and why in words. */
export interface Verdict {
  level: Level;
  reason: string;
}

const RANK: Record<Level, number> = { ok: 0, warning: 1, pause: 2 };
const percent = (rate: number) => `${Number(rate.toFixed(2))}%`;
const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The worst of the two measures: a rate above its pause level pauses, above its warning level
 * warns. Below the minimum volume no rate counts (two bounces of the first ten messages are not a
 * reputation). Strictly above: a rate at its level is not past it.
 */
export function verdictOf(figures: Figures, levels: GuardLevels): Verdict {
  const window = `over the last ${levels.windowHours} hours`;
  if (figures.volume < levels.minVolume) {
    return { level: 'ok', reason: `${figures.volume} messages delivered or bounced ${window}, fewer than the ${levels.minVolume} from which rates count` };
  }
  const measures = [
    { name: 'bounce rate', rate: figures.bounceRate, count: counted(figures.hardBounces, 'hard bounce'), levels: levels.bounce },
    { name: 'complaint rate', rate: figures.complaintRate, count: counted(figures.complaints, 'complaint'), levels: levels.complaint },
  ];
  let verdict: Verdict = { level: 'ok', reason: `bounce rate ${percent(figures.bounceRate)} and complaint rate ${percent(figures.complaintRate)} ${window} are within the levels` };
  for (const m of measures) {
    const level: Level = m.rate > m.levels.pause ? 'pause' : m.rate > m.levels.warning ? 'warning' : 'ok';
    if (RANK[level] <= RANK[verdict.level]) continue;
    const bound = level === 'pause' ? `the pause level of ${m.levels.pause}%` : `the warning level of ${m.levels.warning}%`;
    verdict = { level, reason: `its ${m.name} of ${percent(m.rate)} ${window} (${m.count} in ${figures.volume} messages delivered or bounced) is above ${bound}` };
  }
  return verdict;
}
