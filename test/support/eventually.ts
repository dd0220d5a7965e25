// Polling for what asynchronous code will have done, with no other test support attached (unit
// tests import it without starting a platform or loading mailgun.js).

/** Polls until `check` returns a value (asynchronous pipelines settle in a few hundred ms). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
