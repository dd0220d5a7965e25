/**
 * The send queue's clocks, derived from one another here so they cannot drift apart: the CDK
 * stack (lib/constructs/sending.ts) and local mode (lib/local/region-host.ts) both take them from
 * sendQueueTiming, and the send worker reads the same constants.
 *
 * The chain of reasoning: a recipient claim names the deadline of the invocation that made it.
 * Lambda ends an invocation at its timeout, and the worker itself stops calling SES once less
 * than a chunk's reserve is left, so a claim is certainly abandoned once its deadline (plus a
 * margin for clock skew between invocations) has passed. The queue's visibility timeout is six
 * times the worker's timeout (AWS's guidance), so a redelivery after a visibility timeout always
 * finds the claims of the invocation before it dead.
 */

/** The deployed send worker's Lambda timeout. */
export const SEND_WORKER_TIMEOUT_SECONDS = 120;


/**
 * How long one SES send may take before the client abandons it: room for a message of SES's
 * largest size to upload from Lambda; its outcome is then unknown and it is not retried.
 */
export const SES_REQUEST_TIMEOUT_MS = 30_000;

/** Time kept back for a chunk: its SES call (abandoned after SES_REQUEST_TIMEOUT_MS) plus the claim writes on either side of it. */
export const CHUNK_RESERVE_MS = SES_REQUEST_TIMEOUT_MS + 5_000;

/** Allowance for clocks of two invocations disagreeing, on top of a claim's deadline. */
export const CLAIM_GRACE_MS = 5_000;

/** The send dead-letter consumer's timeout: a few table writes per recipient of up to 10 jobs. */
export const SEND_DEAD_LETTER_WORKER_TIMEOUT_SECONDS = 60;

/** Receives of a send job before its queue parks it in the dead-letter queue. */
export const SEND_MAX_RECEIVE_COUNT = 5;

export interface SendQueueTiming {
  workerTimeoutSeconds: number;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** How long after a claim was made it is certainly dead, at the latest. */
  claimLifetimeMs: number;
}

export function sendQueueTiming(workerTimeoutSeconds = SEND_WORKER_TIMEOUT_SECONDS): SendQueueTiming {
  return {
    workerTimeoutSeconds,
    visibilityTimeoutSeconds: 6 * workerTimeoutSeconds,
    maxReceiveCount: SEND_MAX_RECEIVE_COUNT,
    claimLifetimeMs: workerTimeoutSeconds * 1000 + CLAIM_GRACE_MS,
  };
}

/**
 * Time kept back before the deadline for a chunk: the full reserve on Lambda; half of a shorter
 * timeout (local mode's tests), so some sending still happens.
 */
export const chunkReserveMs = (invocationMs: number) => Math.min(CHUNK_RESERVE_MS, invocationMs / 2);
