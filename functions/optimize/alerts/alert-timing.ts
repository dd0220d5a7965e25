/**
 * The alerts worker's timeout: a message's POST, email acceptance or Slack posts (all of one
 * setting's channels at once) are each bounded by 10 s, plus room for the table and queue calls.
 * The queue's visibility timeout is six times it (lib/constructs/alerts.ts, lib/local/region-host.ts).
 */
export const ALERT_WORKER_TIMEOUT_SECONDS = 30;
