import type { Db } from "../db/client";
import type { CounterKey, HistogramKey } from "./series";
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

const ENDED: CounterKey = "attempts_ended";
const RUN: HistogramKey = "run";

/** A step's start for `t` (UTC-aligned, as date_bin aligns them). */
const stepStart = (t: number, stepMs: number) => Math.floor(t / stepMs) * stepMs;

/** One point per step of `range`, oldest first, the last one the step now in progress. */
export async function typeHistory(sql: Db, type: string, range: HistoryRange, now = new Date()): Promise<TypeHistoryPoint[]> {
  const r = HISTORY_RANGES[range];
  const last = stepStart(now.getTime(), r.stepMs);
  const from = new Date(last - r.ms + r.stepMs);
  const rows = await sql<{ t: Date; metric: string; label: string; n: number }[]>`
    SELECT date_bin(${`${r.stepMs} milliseconds`}::interval, bucket, 'epoch'::timestamptz) AS t, metric, label, sum(value)::float8 AS n
      FROM metric_history
     WHERE type = ${type} AND bucket >= ${from} AND metric IN (${ENDED}, ${`${RUN}_bucket`})
     GROUP BY 1, 2, 3`;
  const steps = new Map<number, { point: TypeHistoryPoint; buckets: Map<string, number> }>();
  for (let t = from.getTime(); t <= last; t += r.stepMs) {
    steps.set(t, {
      point: { t: new Date(t).toISOString(), succeeded: 0, failed: 0, leaseExpired: 0, other: 0, failureRate: null, runP50Ms: null, runP95Ms: null },
      buckets: new Map(),
    });
  }
  for (const row of rows) {
    const s = steps.get(row.t.getTime());
    if (!s) continue;
    if (row.metric === ENDED) {
      if (row.label === "succeeded") s.point.succeeded += row.n;
      else if (row.label === "failed") s.point.failed += row.n;
      else if (row.label === "lease_expired") s.point.leaseExpired += row.n;
      // A release hands an unstarted job back: not an attempt that ended well or badly.
      else if (row.label !== "released") s.point.other += row.n;
    } else s.buckets.set(row.label, (s.buckets.get(row.label) ?? 0) + row.n);
  }
  for (const { point: p, buckets } of steps.values()) {
    const ended = p.succeeded + p.failed + p.leaseExpired + p.other;
    p.failureRate = ended >= MIN_SAMPLE ? (p.failed + p.leaseExpired) / ended : null;
    const runs = [...buckets.values()].reduce((a, b) => a + b, 0);
    if (runs >= MIN_SAMPLE) {
      p.runP50Ms = quantileMs(buckets, 0.5);
      p.runP95Ms = quantileMs(buckets, 0.95);
    }
  }
  return [...steps.values()].map((s) => s.point);
}

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

/** Every type with attempts in `range`: its attempts, failure rate and run time percentiles over the whole range. */
export async function typeSummaries(sql: Db, range: HistoryRange, now = new Date()): Promise<TypeSummary[]> {
  const r = HISTORY_RANGES[range];
  const from = new Date(stepStart(now.getTime(), r.stepMs) - r.ms + r.stepMs);
  const rows = await sql<{ type: string; metric: string; label: string; n: number }[]>`
    SELECT type, metric, label, sum(value)::float8 AS n FROM metric_history
     WHERE bucket >= ${from} AND metric IN (${ENDED}, ${`${RUN}_bucket`})
     GROUP BY 1, 2, 3`;
  const byType = new Map<string, { ended: Map<string, number>; buckets: Map<string, number> }>();
  for (const row of rows) {
    const t = byType.get(row.type) ?? { ended: new Map(), buckets: new Map() };
    (row.metric === ENDED ? t.ended : t.buckets).set(row.label, row.n);
    byType.set(row.type, t);
  }
  return [...byType]
    .map(([type, { ended, buckets }]) => {
      const attempts = [...ended].reduce((a, [label, n]) => a + (label === "released" ? 0 : n), 0);
      const bad = (ended.get("failed") ?? 0) + (ended.get("lease_expired") ?? 0);
      const runs = [...buckets.values()].reduce((a, b) => a + b, 0);
      return {
        type,
        attempts,
        failureRate: attempts >= MIN_SAMPLE ? bad / attempts : null,
        runP50Ms: runs >= MIN_SAMPLE ? quantileMs(buckets, 0.5) : null,
        runP95Ms: runs >= MIN_SAMPLE ? quantileMs(buckets, 0.95) : null,
      };
    })
    .filter((s) => s.attempts > 0)
    .sort((a, b) => b.attempts - a.attempts || a.type.localeCompare(b.type));
}
