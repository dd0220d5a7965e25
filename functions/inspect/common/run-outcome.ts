import type { InspectJob, InspectTest } from './inspect-store';
import type { UsageMetric } from './usage';

/** What running one test produced: its final status word, the result to store, and what it counts. */
export interface RunOutcome {
  status: string;
  result: unknown;
  summary?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  usage?: { metric: UsageMetric; failed: boolean };
}

/** Each kind's runner (functions/inspect/<kind>/run-*.ts): the work of one run of one test. */
export type TestRunner = (test: InspectTest, input: unknown, job: InspectJob) => Promise<RunOutcome>;
