import type { HistogramKey } from "./series";
import { HISTOGRAMS, INF } from "./series";

/**
 * The per-type history charts, from the metrics roll-up's hourly increments (`metric_history`,
 * lib/metrics/rollup.ts) rather than from the job history: a 30-day chart reads at most 720 hours ×
 * a few dozen rows of one type, whatever the number of jobs.
 */
export const HISTORY_RANGES = {
  "24h": { ms: 24 * 3_600_000, stepMs: 3_600_000, label: "last 24 hours", step: "hour" },
  "7d": { ms: 7 * 24 * 3_600_000, stepMs: 6 * 3_600_000, label: "last 7 days", step: "6 hours" },
  "30d": { ms: 30 * 24 * 3_600_000, stepMs: 24 * 3_600_000, label: "last 30 days", step: "day" },
} as const;
export type HistoryRange = keyof typeof HISTORY_RANGES;
export const HISTORY_RANGE_KEYS = Object.keys(HISTORY_RANGES) as HistoryRange[];

export function parseHistoryRange(v: string | null | undefined): HistoryRange {
  return v && v in HISTORY_RANGES ? (v as HistoryRange) : "7d";
}

/**
 * A rate or a percentile is drawn for a step only with this many attempts in it: one failed attempt
 * of one is not a 100% failure rate worth a spike (the same bar as the failure-rate alert's).
 */
export const MIN_SAMPLE = 10;

export type TypeHistoryPoint = {
  t: string;
  succeeded: number;
  failed: number;
  leaseExpired: number;
  other: number;
  /** (failed + lease expired) / ended; null below MIN_SAMPLE attempts. */
  failureRate: number | null;
  /** Run time percentiles, interpolated in the run histogram's buckets; null below MIN_SAMPLE runs. */
  runP50Ms: number | null;
  runP95Ms: number | null;
};

const RUN: HistogramKey = "run";

/**
 * The q-quantile of a histogram's (non-cumulative) buckets keyed by upper bound in seconds, in ms:
 * linear within the bucket it falls in (as Prometheus' histogram_quantile), the highest finite bound
 * when it falls in +Inf.
 */
export function quantileMs(buckets: ReadonlyMap<string, number>, q: number): number | null {
  const bounds = HISTOGRAMS[RUN].buckets;
  const total = [...buckets.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < bounds.length; i++) {
    const n = buckets.get(String(bounds[i])) ?? 0;
    if (below + n >= rank && n > 0) {
      const lo = i === 0 ? 0 : bounds[i - 1]!;
      return (lo + (bounds[i]! - lo) * ((rank - below) / n)) * 1000;
    }
    below += n;
  }
  return (buckets.get(INF) ?? 0) > 0 ? bounds[bounds.length - 1]! * 1000 : null;
}

export type TypeSummary = { type: string; attempts: number; failureRate: number | null; runP50Ms: number | null; runP95Ms: number | null };
