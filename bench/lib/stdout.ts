/**
 * The handlers log one JSON line per request to stdout (CloudWatch on Lambda). Here those lines are
 * dropped at the write (their formatting still runs) and counted, so the report stays readable.
 */
export function silenceStdout(): { lines: () => number; restore: () => void } {
  const original = process.stdout.write;
  let lines = 0;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
    const callback = rest.find((r) => typeof r === 'function') as ((error?: Error | null) => void) | undefined;
    if (callback) process.nextTick(callback);
    return true;
  }) as typeof process.stdout.write;
  return { lines: () => lines, restore: () => void (process.stdout.write = original) };
}
