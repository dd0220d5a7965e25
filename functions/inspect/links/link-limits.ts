/** Link tests end `Completed` (contract §0). */
export const COMPLETED = 'Completed';
/** The most links one test checks: at 12 at a time and 10 s each, a worst case still ends within the worker's 15 minutes. */
export const MAX_LINKS = 1000;
