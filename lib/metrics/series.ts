/**
 * The series Jobscope exposes at GET /metrics, one list: the roll-up (rollup.ts) writes
 * the counters and histograms under these keys, the scrape (scrape.ts) reads them back, the Grafana
 * dashboard (docs/grafana-dashboard.json) and docs/operations.md name them.
 */

/** Counters rolled up from the history: the key in metric_totals, the exposed name, its labels. */
export const COUNTERS = {
  jobs_enqueued: {
    name: "jobscope_jobs_enqueued_total",
    help: "Jobs submitted, by queue and type (counted from job_catalog.created_at).",
    labels: ["queue", "type"],
  },
  attempts_started: {
    name: "jobscope_attempts_started_total",
    help: "Attempts whose handler started, by queue and type (counted when the attempt ends; a worker's own metrics count them at the claim).",
    labels: ["queue", "type"],
  },
  attempts_ended: {
    name: "jobscope_attempts_ended_total",
    help: "Attempts that ended, by queue, type and outcome (succeeded, failed, lease_expired, cancelled, abandoned, released).",
    labels: ["queue", "type", "outcome"],
  },
  jobs_finished: { name: "jobscope_jobs_finished_total", help: "Jobs that succeeded, by queue and type.", labels: ["queue", "type"] },
  attempts_failed: {
    name: "jobscope_attempts_failed_total",
    help: "Attempts whose handler failed (outcome failed: retried, or dead on a permanent error or the last attempt), by queue and type.",
    labels: ["queue", "type"],
  },
  jobs_dead: {
    name: "jobscope_jobs_dead_total",
    help: "Jobs that went dead (attempts exhausted, a permanent error, a poison job, given up by an operator), by queue and type.",
    labels: ["queue", "type"],
  },
  jobs_cancelled: { name: "jobscope_jobs_cancelled_total", help: "Jobs cancelled, by queue and type.", labels: ["queue", "type"] },
  supervisor_actions: {
    name: "jobscope_supervisor_actions_total",
    help: "Stale leases the supervisor recovered, by queue, type and action (reclaim, abandon).",
    labels: ["queue", "type", "action"],
  },
  rejections: {
    name: "jobscope_rejections_total",
    help: "Transitions the write path refused, by kind (conflict, illegal, drift). Any drift is an invariant violation: alert on it.",
    labels: ["kind"],
  },
  integrity_audits: { name: "jobscope_integrity_audits_total", help: "Integrity checks run.", labels: [] },
  integrity_mismatches: {
    name: "jobscope_integrity_mismatches_total",
    help: "Jobs whose event log did not replay to their row, over every integrity check.",
    labels: [],
  },
} as const satisfies Record<string, { name: string; help: string; labels: readonly string[] }>;
export type CounterKey = keyof typeof COUNTERS;

/** Upper bounds of the histogram buckets, in seconds. */
export const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600] as const;
export const RUN_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600] as const;

export const HISTOGRAMS = {
  queue_wait: {
    name: "jobscope_queue_wait_seconds",
    help: "Time from a job becoming claimable (submitted or due, retried, reclaimed) to its claim, per attempt, by queue and type.",
    buckets: WAIT_BUCKETS,
  },
  run: { name: "jobscope_run_seconds", help: "Time from an attempt's start to its end, by queue and type.", buckets: RUN_BUCKETS },
} as const;
export type HistogramKey = keyof typeof HISTOGRAMS;

/** The histogram bucket label of a value's row in metric_totals (non-cumulative; the scrape sums them). */
export const INF = "+Inf";
