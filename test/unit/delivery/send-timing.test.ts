import { chunkReserveMs, CHUNK_RESERVE_MS, SES_REQUEST_TIMEOUT_MS, SEND_WORKER_TIMEOUT_SECONDS, sendQueueTiming } from '../../../functions/delivery/send-timing';

// The send queue's clocks must keep one order whatever the worker's timeout, or a redelivered
// job could find a claim alive that nobody holds any more, or take over one still in use.
describe.each([SEND_WORKER_TIMEOUT_SECONDS, 60, 2])('with a %s s worker timeout', (timeout) => {
  const timing = sendQueueTiming(timeout);

  it('makes a job visible again only after its claims are certainly dead', () => {
    expect(timing.visibilityTimeoutSeconds).toBe(6 * timeout);
    expect(timing.visibilityTimeoutSeconds * 1000).toBeGreaterThan(timing.claimLifetimeMs);
    expect(timing.claimLifetimeMs).toBeGreaterThan(timeout * 1000);
  });

  it('keeps back less than the whole invocation for the last SES chunk', () => {
    expect(chunkReserveMs(timeout * 1000)).toBeGreaterThan(0);
    expect(chunkReserveMs(timeout * 1000)).toBeLessThan(timeout * 1000);
  });
});

it('gives up on an SES call before the reserve kept for it runs out', () => {
  expect(SES_REQUEST_TIMEOUT_MS).toBeLessThan(CHUNK_RESERVE_MS);
  expect(chunkReserveMs(SEND_WORKER_TIMEOUT_SECONDS * 1000)).toBe(CHUNK_RESERVE_MS);
});
