import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../platform/logger';
import { fetchPostmasterData, type FetchSummary } from './fetch';

/** The periodic job of functions/schedules.ts: Google Postmaster figures for the managed domains, daily. */
export async function handler(_event?: Partial<ScheduledEvent>): Promise<FetchSummary> {
  const summary = await fetchPostmasterData();
  // Counts only: the key, the token and Google's replies stay out of the log.
  if (summary.configured) logger.info('postmaster fetch', { ...summary });
  return summary;
}
