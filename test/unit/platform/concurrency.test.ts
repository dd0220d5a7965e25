import { mapLimit } from '../../../functions/platform/concurrency';

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
