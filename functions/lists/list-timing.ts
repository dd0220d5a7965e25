/**
 * The list worker's timeout, shared by CDK (lib/constructs/lists.ts), local mode and the worker,
 * which assumes it without a Lambda context. A job is one page of members; the queue's
 * visibility timeout is six times this.
 */
export const EXPANSION_WORKER_TIMEOUT_SECONDS = 120;
