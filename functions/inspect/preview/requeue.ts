import { bounceClient, MAX_ATTEMPTS, nextRun, REQUEUE_AFTER_SECONDS, startRenders, type PreviewClientState } from './preview-store';

/**
 * The 3-minute rule as a GET applies it (spec States and transitions; contract §5.4): a client
 * still processing more than three minutes after its attempt started is re-queued in a new run,
 * or bounced once its attempts are spent. The workflow's own timeout and retries do the same
 * without polling; this covers an execution that was lost or never started. Answers the states
 * as they now are.
 */
export async function requeueStale(states: PreviewClientState[], now = Date.now()): Promise<PreviewClientState[]> {
  const stale = states.filter((state) => state.status === 'Processing' && now / 1000 - state.submitted > REQUEUE_AFTER_SECONDS);
  if (!stale.length) return states;
  const updated = new Map<string, PreviewClientState>();
  const requeued: PreviewClientState[] = [];
  for (const state of stale) {
    if (state.attempts >= MAX_ATTEMPTS) {
      const message = `Rendering did not finish within ${REQUEUE_AFTER_SECONDS / 60} minutes in ${state.attempts} attempts`;
      if (await bounceClient(state, 'render_timeout', message, now)) {
        updated.set(state.clientId, { ...state, status: 'Bounced', completed: Math.floor(now / 1000), bounceCode: 'render_timeout', bounceMessage: message });
      }
      continue;
    }
    // The new run keeps its attempts: the next try is attempt n+1.
    const next = await nextRun(state, {}, now);
    if (next) {
      updated.set(state.clientId, next);
      requeued.push(next);
    }
  }
  await startRenders(requeued);
  return states.map((state) => updated.get(state.clientId) ?? state);
}
