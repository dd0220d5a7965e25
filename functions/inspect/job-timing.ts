/**
 * The inspection worker's timeout, shared by CDK (lib/constructs/inspection.ts) and local mode.
 * A run of the longest test, 1,000 links at 12 at a time and 10 s each at worst, is under 14
 * minutes: Lambda's own ceiling, so nothing the API accepts can outgrow it.
 */
export const INSPECT_WORKER_TIMEOUT_SECONDS = 900;
