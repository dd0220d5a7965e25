import { sendCpu } from '../../bench/send-cpu';

// The send CPU bench replays the handler's AWS calls from a recording; when the handler's calls
// change (a new read, a cached one), a stale recording used to surface only in a full bench run.
// Its smoke run does every step at a few requests each, so a broken set-up fails here.
it('the send handler CPU bench runs end to end at smoke size', async () => {
  const result = await sendCpu({ profile: false, smoke: true });
  expect(result.ours.cpuUs).toBeGreaterThan(0);
  expect(result.handlerOnly.cpuUs).toBeGreaterThan(0);
  expect(Number.isFinite(result.ratio)).toBe(true);
  expect(result.ours.awsCallsPerRequest).toHaveProperty('PutObjectCommand');
}, 600_000);
