/** An IP job walks an account's domains once, one write each: a minute covers thousands. */
export const IP_JOB_WORKER_TIMEOUT_SECONDS = 120;
