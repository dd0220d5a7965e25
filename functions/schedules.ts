/**
 * Periodic work, in one table (the scheduling port): CDK makes an EventBridge rule per row that
 * invokes `functions/<entry>.ts`'s handler at `everyMinutes`; local mode runs the same handler on
 * a timer, whose period a setting shortens (tests run a sweep in seconds).
 */
export interface PeriodicJob {
  name: string;
  /** The module under functions/, without `.ts`, exporting `handler`. */
  entry: string;
  everyMinutes: number;
  /** What the job's role may do beyond reading and writing the table (lib/constructs/area-permissions.ts). */
  grant: 'sending-identities' | 'dedicated-ips' | 'blocklist-checks' | 'postmaster-credentials' | 'reputation-guard';
  /**
   * The product whose nested stack holds the job on AWS (lib/constructs/product-api.ts), when the
   * job starts that product's workflows or raises its alerts; absent, the region's stack
   * (lib/constructs/periodic-jobs.ts).
   */
  product?: 'Optimization';
  /**
   * A setting (seconds) the job must keep up with: local mode runs it that often when that is more
   * often than `everyMinutes`; on AWS the rule's rate is the floor (docs/optimization.md says so).
   */
  cadenceSetting?: 'BLOCKLIST_CHECK_INTERVAL' | 'REPUTATION_CHECK_INTERVAL';
  description: string;
}

export const periodicJobs: readonly PeriodicJob[] = [
  {
    name: 'dkim-rotation',
    entry: 'dkim/rotation-sweep',
    // A rotation waits on the user's DNS change: an hour is prompt enough, and cheap.
    everyMinutes: 60,
    grant: 'sending-identities',
    description: 'DKIM key rotation: makes due keys, switches signing once their records verify',
  },
  {
    name: 'sending-ips',
    entry: 'sending-ips/sweep',
    // A stage lasts a day at least: a quarter of an hour late to move on is nothing.
    everyMinutes: 15,
    grant: 'dedicated-ips',
    description: 'Dedicated IPs: moves warming IPs to their next stage once a stage is done (and tells SES), reassesses domains in dynamic pools daily',
  },
  {
    name: 'blocklist-checks',
    entry: 'optimize/blocklists/sweep',
    // The check interval (BLOCKLIST_CHECK_INTERVAL, an hour by default) is kept to within this.
    everyMinutes: 15,
    grant: 'blocklist-checks',
    product: 'Optimization',
    cadenceSetting: 'BLOCKLIST_CHECK_INTERVAL',
    description: 'Blocklist monitoring: adds dedicated IPs, starts a check run for the IPs and domains not checked for BLOCKLIST_CHECK_INTERVAL',
  },
  {
    name: 'reputation-guard',
    entry: 'reputation/sweep',
    // REPUTATION_CHECK_INTERVAL (15 minutes by default) is kept to within this.
    everyMinutes: 15,
    grant: 'reputation-guard',
    product: 'Optimization',
    cadenceSetting: 'REPUTATION_CHECK_INTERVAL',
    description: "Reputation guard: each account's bounce and complaint rates over the window; alerts above a warning level, turns a subaccount's sending off above a pause level",
  },
  {
    name: 'postmaster-fetch',
    entry: 'optimize/postmaster/fetch-job',
    // Google publishes a day's Postmaster figures once, a day or two late: daily is all there is to get.
    everyMinutes: 24 * 60,
    grant: 'postmaster-credentials',
    product: 'Optimization',
    description: 'Google Postmaster Tools: fetches the daily figures and compliance status of verified managed domains',
  },
];
