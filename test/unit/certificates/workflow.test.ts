import { LAMBDA_INVOKE, lambdaInvokeTask, LocalWorkflow, type Json } from '../../../lib/local/workflow-runner';

// lib/workflows/tracking-certificate.asl.json run with stand-in steps: which step runs when, and
// what each is given. (The steps themselves run against the stand-ins in the integration test.)

type Event = { step: string; state: Record<string, Json> };
const FN = 'arn:aws:lambda:us-east-1:000000000000:function:certificate-tasks';

function named(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

function run(steps: Partial<Record<string, (event: Event, calls: number) => Json>>, input: Json) {
  const calls: Event[] = [];
  const counts: Record<string, number> = {};
  const workflow = new LocalWorkflow(
    'tracking-certificate',
    { CertificateTasksFunctionArn: FN },
    {
      [LAMBDA_INVOKE]: lambdaInvokeTask({
        [FN]: async (event: Event) => {
          calls.push(JSON.parse(JSON.stringify(event)) as Event);
          counts[event.step] = (counts[event.step] ?? 0) + 1;
          const step = steps[event.step];
          return step ? step(event, counts[event.step]!) : {};
        },
      }),
    },
    undefined,
    { retryIntervalMs: 1 },
  );
  return { calls, result: workflow.run(input).result };
}

const job = { accountId: 'a', domain: 'mg.example.com', host: 'email.mg.example.com', jobId: 'x509-1', deadline: '2099-01-01T00:00:00Z', pollSeconds: 0, previousArn: 'arn:old' };

describe('the tracking-certificate workflow', () => {
  it('requests, polls until issued (waiting pollSeconds between), attaches, then retires the replaced certificate', async () => {
    const { calls, result } = run({ request: () => ({ certificateArn: 'arn:new' }), poll: (_e, n) => ({ issued: n >= 3 }) }, { action: 'issue', job });
    await expect(result).resolves.toBeDefined();
    expect(calls.map((c) => c.step)).toEqual(['request', 'poll', 'poll', 'poll', 'attach', 'retire']);
    // Each step gets the whole state: the job, and what came before.
    expect(calls[4]!.state).toMatchObject({ job, issued: { certificateArn: 'arn:new' }, poll: { issued: true } });
  });

  it('records a failure (with what was caught) and ends failed, without retrying a step that cannot succeed', async () => {
    const { calls, result } = run(
      { request: () => ({ certificateArn: 'arn:new' }), poll: () => { throw named('CertificateNotIssued', 'ACM did not issue the certificate by then'); } },
      { action: 'issue', job },
    );
    await expect(result).rejects.toThrow();
    expect(calls.map((c) => c.step)).toEqual(['request', 'poll', 'fail']);
    expect(calls[2]!.state).toMatchObject({ issued: { certificateArn: 'arn:new' }, error: { Error: 'CertificateNotIssued', Cause: 'ACM did not issue the certificate by then' } });
  });

  it('retries a step that failed for a passing reason, and records the failure once the retries are spent', async () => {
    const { calls, result } = run({ request: () => { throw named('ThrottlingException', 'slow down'); } }, { action: 'issue', job });
    await expect(result).rejects.toThrow();
    expect(calls.map((c) => c.step)).toEqual([...Array(7).fill('request'), 'fail']);
  });

  it('still ends when retiring the old certificate keeps failing: the new one is already serving', async () => {
    const { calls, result } = run(
      { request: () => ({ certificateArn: 'arn:new' }), poll: () => ({ issued: true }), retire: () => { throw named('CertificateInUse', 'in use'); } },
      { action: 'issue', job },
    );
    await expect(result).resolves.toBeDefined();
    expect(calls.filter((c) => c.step === 'retire')).toHaveLength(9);
    expect(calls.map((c) => c.step)).not.toContain('fail');
  });

  it('releases: one step, retried while API Gateway still holds the certificate', async () => {
    const { calls, result } = run({ release: (_e, n) => { if (n < 3) throw named('CertificateInUse', 'in use'); return {}; } }, { action: 'release', release: { host: 'email.mg.example.com', certificateArn: 'arn:x' } });
    await expect(result).resolves.toBeDefined();
    expect(calls.map((c) => c.step)).toEqual(['release', 'release', 'release']);
    expect(calls[0]!.state).toMatchObject({ release: { host: 'email.mg.example.com', certificateArn: 'arn:x' } });
  });
});
