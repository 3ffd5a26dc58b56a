import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { execute } from "../db/drizzle";
import { HISTORY_RANGES, MIN_SAMPLE, quantileMs, type HistoryRange, type TypeHistoryPoint, type TypeSummary } from "./history";
import type { CounterKey, HistogramKey } from "./series";

// The type pages' reads of metric_history (the supervisor's roll-up, lib/metrics/rollup.ts); what
// they return, and the ranges, are lib/metrics/history.ts, which the browser's code also reads.

const RUN: HistogramKey = "run";
const ENDED: CounterKey = "attempts_ended";

/** A step's start for `t` (UTC-aligned, as date_bin aligns them). */
const stepStart = (t: number, stepMs: number) => Math.floor(t / stepMs) * stepMs;

/** One point per step of `range`, oldest first, the last one the step now in progress. */
export async function typeHistory(db: Db, type: string, range: HistoryRange, now = new Date()): Promise<TypeHistoryPoint[]> {
  const r = HISTORY_RANGES[range];
  const last = stepStart(now.getTime(), r.stepMs);
  const from = new Date(last - r.ms + r.stepMs);
  const rows = await execute<{ t: Date; metric: string; label: string; n: number }>(
    db,
    sql`
    SELECT date_bin(${`${r.stepMs} milliseconds`}::interval, bucket, 'epoch'::timestamptz) AS t, metric, label, sum(value)::float8 AS n
      FROM metric_history
     WHERE type = ${type} AND bucket >= ${from} AND metric IN (${ENDED}, ${`${RUN}_bucket`})
     GROUP BY 1, 2, 3`,
  );
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

/** Every type with attempts in `range`: its attempts, failure rate and run time percentiles over the whole range. */
export async function typeSummaries(db: Db, range: HistoryRange, now = new Date()): Promise<TypeSummary[]> {
  const r = HISTORY_RANGES[range];
  const from = new Date(stepStart(now.getTime(), r.stepMs) - r.ms + r.stepMs);
  const rows = await execute<{ type: string; metric: string; label: string; n: number }>(
    db,
    sql`
    SELECT type, metric, label, sum(value)::float8 AS n FROM metric_history
     WHERE bucket >= ${from} AND metric IN (${ENDED}, ${`${RUN}_bucket`})
     GROUP BY 1, 2, 3`,
  );
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
