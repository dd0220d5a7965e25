import { mapLimit, oneAtATime } from '../../../functions/platform/concurrency';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('mapLimit keeps the order of results and never has more than the limit in flight', async () => {
  let inFlight = 0;
  let most = 0;
  const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
    most = Math.max(most, ++inFlight);
    for (let i = 0; i < n; i++) await tick();
    inFlight--;
    return n * 10;
  });
  expect(out).toEqual([50, 10, 40, 20, 30]);
  expect(most).toBe(2);
});

test('oneAtATime starts each call once the one before has settled, even when it failed', async () => {
  const log: string[] = [];
  const serial = oneAtATime(async (name: string, fail = false) => {
    log.push(`start ${name}`);
    await tick();
    log.push(`end ${name}`);
    if (fail) throw new Error(name);
    return name;
  });
  const results = await Promise.allSettled([serial('a'), serial('b', true), serial('c')]);
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'b', 'c']);
  expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
});
