// Polling for what asynchronous code will have done, with no other test support attached (unit
// tests import it without starting a platform or loading mailgun.js).

/**
 * How long a poll waits before it calls a condition unmet. A hang detector, not a speed budget:
 * asynchronous pipelines settle in well under a second on an idle machine, and a slow or busy one
 * (CI, two cores shared with other work) must still pass. Jest's own timeout (jest.config.js) is
 * longer, so a poll that gives up says which condition it was.
 */
export const PATIENCE_MS = 120_000;

/**
 * Polls until `check` returns a value: often at first, then less often (up to every 250 ms), so a
 * long wait does not keep the host under test busy answering the checks.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = PATIENCE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 25; ; pause = Math.min(250, pause * 1.5)) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
