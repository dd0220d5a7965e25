/**
 * A domain's place in the dynamic IP pools (dynamic-pools.ts), as its DomainItem carries it: a
 * module of its own, importing nothing, so the domain store can name it without importing the pools.
 */
export const BANDS = ['dynamic_good', 'dynamic_poor', 'dynamic_new'] as const;
export type Band = (typeof BANDS)[number];

/** An enrolled domain's place in the pools (on its DomainItem). */
export interface DynamicEnrollment {
  /** The account whose pools it uses: its own, or its parent's (enrolled with include_subaccounts). */
  ownerId: string;
  band: Band;
  override?: Band;
  enrolledAt: string;
  assessedAt: string;
  metrics: Metrics;
}

export interface Metrics {
  bounce_rate: number;
  complaint_rate: number;
  processed_count: number;
}
