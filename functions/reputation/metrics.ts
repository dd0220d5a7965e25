/**
 * The reputation guard's CloudWatch metrics (written by sweep.ts as EMF lines), named once for the
 * guard and for the region's alarms and dashboard (lib/constructs/alarms.ts): all with the
 * dimension PlatformRegion; the per-account rates also with AccountId.
 */
export const REPUTATION_METRICS = {
  namespace: 'Mailplane/ReputationGuard',
  /** Accounts (the primary one included) above a warning or pause level at the last run. */
  aboveWarning: 'AccountsAboveWarning',
  /** Subaccounts whose sending the guard has turned off and their parent not yet back on. */
  paused: 'PausedSubaccounts',
  /** 1 when the primary account itself is above a pause level (it has no parent to pause it). */
  primaryAbovePause: 'PrimaryAbovePause',
  bounceRate: 'BounceRate',
  complaintRate: 'ComplaintRate',
} as const;
