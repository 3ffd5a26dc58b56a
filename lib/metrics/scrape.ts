import { performance } from "node:perf_hooks";
import { Counter, Gauge, Registry, type Metric } from "prom-client";
import type { Db } from "../db/client";
import { declaredQueues, isJobType } from "../jobs/job-types";
import { SILENT_AFTER_MS } from "../insight/windows";
import { COUNTERS, HISTOGRAMS, INF, type CounterKey, type HistogramKey } from "./series";
import { sql } from "drizzle-orm";
import { distinctValues } from "../db/distinct-values";
import { execute } from "../db/drizzle";
import { jobCatalog } from "../db/schema";

/*
 * GET /metrics: one Prometheus scrape, built with prom-client from bounded reads. The
 * counters and histograms come from metric_totals (rollup.ts: a few rows per queue and type); the
 * gauges are read live, each bounded whatever the size of the tables, with the index that serves it:
 * - queue names: the known ones (below), and up to OTHER_QUEUE_SCAN others by a skip scan of
 *   job_catalog_queue_created_idx (one probe per queue), whose figures are summed under "other";
 * - queued jobs per queue: jobs_live_claim_idx, at most METRICS_COUNT_CAP + 1 entries each, and the
 *   oldest due job among the first OLDEST_SCAN in claim order (as the queues page);
 * - leased jobs per queue: jobs_live_lease_idx, at most METRICS_COUNT_CAP + 1 each;
 * - paused and retry_wait jobs: at most WAITING_SCAN of them, every queue together (no index leads by
 *   queue for them), counted by queue: exact below, lower bounds (capped = 1) above;
 * - workers: workers_last_seen_idx; the last integrity check: integrity_audits_at_idx;
 * - the live table's size: the planner's estimate (pg_class.reltuples), never a count.
 * A count that reached its cap is reported as the cap, with jobscope_jobs_count_capped = 1.
 *
 * Labels have bounded cardinality, whatever is submitted: a queue is named only if it is known —
 * declared by a job type, given settings by an operator (`queues`), or served by a live worker — up
 * to METRIC_QUEUE_LIMIT of them; a type only if it is one of this deployment's job types. Everything
 * else is counted under queue="other" and type="other" (500 invented queue names made 3,300 of
 * 3,580 series).
 */

export const METRICS_COUNT_CAP = 10_000;
export const OLDEST_SCAN = 1_000;
/** Paused and retry_wait jobs read (every queue together, no index leads by queue for them) to count them by queue. */
export const WAITING_SCAN = 2_000;
/** Most queues named in labels; the rest are "other". */
export const METRIC_QUEUE_LIMIT = 100;
/** Unknown queues probed (their figures summed under "other"); beyond them the "other" counts are lower bounds, marked capped. */
const OTHER_QUEUE_SCAN = 200;
export const OTHER = "other";
const LIVE_STATES = ["queued", "claimed", "running", "paused", "cancelling", "retry_wait"] as const;

type Total = { metric: string; queue: string; type: string; label: string; value: number };
type QueueProbe = { name: string; paused: boolean | null; queued: number; oldestDueAge: number | null; leased: Record<string, number> | null };

/** The scrape's text and its content type. `sql` must see every tenant (the route scopes it to staff). */
export async function collectMetrics(db: Db): Promise<{ text: string; contentType: string }> {
  const t0 = performance.now();
  const known = await knownQueues(db);
  const [totals, cursor, probes, waiting, workers, audit, estimate] = await Promise.all([
    execute<Total>(db, sql`SELECT metric, queue, type, label, value FROM metric_totals`),
    execute<{ lag: number | null }>(db, sql`SELECT extract(epoch FROM now() - upto_at)::float8 AS lag FROM metric_cursors WHERE source = 'history'`),
    queueProbes(db, known),
    execute<{ queue: string; state: string; n: number; total: number }>(
      db,
      sql`
      SELECT queue, state::text AS state, count(*)::int AS n, sum(count(*)) OVER ()::int AS total
        FROM (SELECT queue, state FROM jobs_live WHERE state IN ('paused', 'retry_wait') LIMIT ${WAITING_SCAN + 1}) x
       GROUP BY queue, state`,
    ),
    execute<{ live: number; silent: number }>(
      db,
      sql`
      SELECT (SELECT count(*)::int FROM workers WHERE last_seen_at >= now() - ${SILENT_AFTER_MS} * interval '1 millisecond' AND stopped_at IS NULL) AS live,
             (SELECT count(*)::int FROM (
                SELECT 1 FROM workers WHERE last_seen_at < now() - ${SILENT_AFTER_MS} * interval '1 millisecond' AND stopped_at IS NULL
                 LIMIT ${METRICS_COUNT_CAP}) s) AS silent`,
    ),
    execute<{ mismatches: number; at: Date }>(db, sql`SELECT mismatches, at FROM integrity_audits ORDER BY at DESC NULLS LAST LIMIT 1`),
    execute<{ n: number }>(db, sql`SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'jobs_live'::regclass`),
  ]);

  const reg = new Registry();
  const knownSet = new Set(known);
  // Unknown queues and types become "other" (rejections and audits carry neither: '' stays '').
  const named = totals.map((t) => ({
    ...t,
    queue: t.queue === "" || knownSet.has(t.queue) ? t.queue : OTHER,
    type: t.type === "" || isJobType(t.type) ? t.type : OTHER,
  }));
  const queues = foldOthers(probes, knownSet);
  // Counters rolled up from the history.
  for (const k of Object.keys(COUNTERS) as CounterKey[]) {
    const spec = COUNTERS[k];
    const c = new Counter({ name: spec.name, help: spec.help, labelNames: [...spec.labels], registers: [reg] });
    for (const t of named) if (t.metric === k) c.inc(labelsOf(spec.labels, t), t.value);
  }
  for (const k of Object.keys(HISTOGRAMS) as HistogramKey[]) reg.registerMetric(histogram(k, named));

  // Live gauges.
  const jobs = new Gauge({
    name: "jobscope_jobs",
    help: `Unfinished jobs by queue and state (exact up to ${METRICS_COUNT_CAP}; see jobscope_jobs_count_capped).`,
    labelNames: ["queue", "state"],
    registers: [reg],
  });
  const capped = new Gauge({
    name: "jobscope_jobs_count_capped",
    help: "1 when jobscope_jobs for this queue and state stopped at its cap (a lower bound).",
    labelNames: ["queue", "state"],
    registers: [reg],
  });
  const oldest = new Gauge({
    name: "jobscope_queue_oldest_due_age_seconds",
    help: `Age of the queue's oldest due job (claimable and not claimed) among the first ${OLDEST_SCAN} in claim order; 0 when none is due.`,
    labelNames: ["queue"],
    registers: [reg],
  });
  const paused = new Gauge({ name: "jobscope_queue_paused", help: "1 when an operator paused the queue.", labelNames: ["queue"], registers: [reg] });
  const waitingCapped = (waiting[0]?.total ?? 0) > WAITING_SCAN;
  for (const q of queues) {
    const counts: Record<string, { n: number; capped: boolean }> = Object.fromEntries(LIVE_STATES.map((s) => [s, { n: 0, capped: false }]));
    counts.queued = cap(q.queued);
    const leasedTotal = Object.values(q.leased ?? {}).reduce((a, b) => a + b, 0);
    for (const s of ["claimed", "running", "cancelling"])
      counts[s] = { n: Math.min(q.leased?.[s] ?? 0, METRICS_COUNT_CAP), capped: leasedTotal > METRICS_COUNT_CAP };
    for (const w of waiting) {
      if ((knownSet.has(w.queue) ? w.queue : OTHER) !== q.name) continue;
      const n = (q.name === OTHER ? counts[w.state]!.n : 0) + w.n;
      counts[w.state] = waitingCapped ? { n, capped: true } : cap(n);
    }
    if (q.capped) for (const s of LIVE_STATES) counts[s] = { n: counts[s]!.n, capped: true };
    for (const s of LIVE_STATES) {
      jobs.set({ queue: q.name, state: s }, counts[s]!.n);
      capped.set({ queue: q.name, state: s }, counts[s]!.capped ? 1 : 0);
    }
    oldest.set({ queue: q.name }, Math.max(0, q.oldestDueAge ?? 0));
    paused.set({ queue: q.name }, q.paused ? 1 : 0);
  }
  new Gauge({
    name: "jobscope_jobs_live_estimate",
    help: "The planner's estimate of unfinished jobs (pg_class.reltuples of jobs_live): every queue, never counted.",
    registers: [reg],
  }).set(estimate[0]?.n ?? 0);
  const w = new Gauge({
    name: "jobscope_workers",
    help: `Workers by status: live (seen within ${SILENT_AFTER_MS / 1000} s), silent (not seen since, and never said they stopped).`,
    labelNames: ["status"],
    registers: [reg],
  });
  w.set({ status: "live" }, workers[0]?.live ?? 0);
  w.set({ status: "silent" }, workers[0]?.silent ?? 0);
  new Gauge({ name: "jobscope_integrity_last_audit_mismatches", help: "Mismatches found by the newest integrity check.", registers: [reg] }).set(
    audit[0]?.mismatches ?? 0,
  );
  new Gauge({
    name: "jobscope_integrity_last_audit_timestamp_seconds",
    help: "When the newest integrity check ran (0: never).",
    registers: [reg],
  }).set(audit[0] ? audit[0].at.getTime() / 1000 : 0);
  new Gauge({
    name: "jobscope_metrics_rollup_lag_seconds",
    help: "How far the counters and histograms are behind now (the supervisor rolls them up; -1: never rolled up).",
    registers: [reg],
  }).set(cursor[0]?.lag ?? -1);
  new Gauge({ name: "jobscope_metrics_scrape_read_seconds", help: "How long this scrape's database reads took.", registers: [reg] }).set(
    (performance.now() - t0) / 1000,
  );
  return { text: await reg.metrics(), contentType: reg.contentType };
}

const cap = (n: number) => (n > METRICS_COUNT_CAP ? { n: METRICS_COUNT_CAP, capped: true } : { n, capped: false });

/** A metric_totals row's labels: queue and type from their columns, any other label from `label`. */
function labelsOf(names: readonly string[], t: Total): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = n === "queue" ? t.queue : n === "type" ? t.type : t.label;
  return out;
}

/**
 * A histogram whose buckets were counted in the database: prom-client's Histogram only observes
 * values one by one, so this is a metric object of its own that the registry formats like any
 * other (name, help, type, values with `_bucket`/`_sum`/`_count` names and `le` labels).
 */
function histogram(k: HistogramKey, totals: readonly Total[]): Metric {
  const spec = HISTOGRAMS[k];
  type Acc = { queue: string; type: string; buckets: Map<string, number>; sum: number; count: number };
  const by = new Map<string, Acc>();
  const acc = (t: Total) => {
    const id = `${t.queue}\u0000${t.type}`;
    let a = by.get(id);
    if (!a) by.set(id, (a = { queue: t.queue, type: t.type, buckets: new Map(), sum: 0, count: 0 }));
    return a;
  };
  for (const t of totals) {
    if (t.metric === `${k}_bucket`) acc(t).buckets.set(t.label, (acc(t).buckets.get(t.label) ?? 0) + t.value);
    else if (t.metric === `${k}_sum`) acc(t).sum += t.value;
    else if (t.metric === `${k}_count`) acc(t).count += t.value;
  }
  const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
  for (const a of [...by.values()].sort((x, y) => x.queue.localeCompare(y.queue) || x.type.localeCompare(y.type))) {
    const labels = { queue: a.queue, type: a.type };
    let cumulative = 0;
    for (const le of spec.buckets) {
      cumulative += a.buckets.get(String(le)) ?? 0;
      values.push({ metricName: `${spec.name}_bucket`, labels: { ...labels, le }, value: cumulative });
    }
    cumulative += a.buckets.get(INF) ?? 0;
    values.push({ metricName: `${spec.name}_bucket`, labels: { ...labels, le: INF }, value: cumulative });
    values.push({ metricName: `${spec.name}_sum`, labels, value: a.sum });
    values.push({ metricName: `${spec.name}_count`, labels, value: a.count });
  }
  const metric = {
    name: spec.name,
    help: spec.help,
    type: "histogram",
    aggregator: "sum",
    get: async () => ({ name: spec.name, help: spec.help, type: "histogram", aggregator: "sum", values }),
  };
  return metric as unknown as Metric;
}

/**
 * The queues named in labels: the job types' own, then those an operator gave settings and those
 * live workers serve, in name order, METRIC_QUEUE_LIMIT in all.
 */
async function knownQueues(db: Db): Promise<string[]> {
  const rows = await execute<{ name: string }>(
    db,
    sql`
    SELECT name FROM (
      (SELECT name FROM queues ORDER BY name LIMIT ${METRIC_QUEUE_LIMIT})
      UNION
      (SELECT DISTINCT unnest(queues) FROM workers
        WHERE stopped_at IS NULL AND last_seen_at >= now() - ${SILENT_AFTER_MS} * interval '1 millisecond' LIMIT ${METRIC_QUEUE_LIMIT})) n
    ORDER BY name`,
  );
  const declared = declaredQueues();
  return [...new Set([...declared, ...rows.map((r) => r.name)])].filter((n) => n !== OTHER).slice(0, METRIC_QUEUE_LIMIT);
}

/** The probes of unknown queues summed into one named "other" (capped when there may be more of them than were probed). */
function foldOthers(probes: (QueueProbe & { more?: boolean })[], known: ReadonlySet<string>): (QueueProbe & { capped?: boolean })[] {
  const mine = probes.filter((p) => known.has(p.name));
  const others = probes.filter((p) => !known.has(p.name));
  if (others.length === 0) return mine;
  const leased: Record<string, number> = {};
  for (const o of others) for (const [k, v] of Object.entries(o.leased ?? {})) leased[k] = (leased[k] ?? 0) + v;
  const ages = others.map((o) => o.oldestDueAge).filter((a): a is number => a !== null);
  const other = {
    name: OTHER,
    paused: false,
    queued: others.reduce((n, o) => n + o.queued, 0),
    oldestDueAge: ages.length ? Math.max(...ages) : null,
    leased,
    capped: others.some((o) => o.more),
  };
  return [...mine, other];
}

/**
 * Per queue, one probe of each index: settings, queued count, oldest due job's age, leased jobs by
 * state — for the known queues and the first OTHER_QUEUE_SCAN others (`more`: there may be others beyond).
 */
async function queueProbes(db: Db, known: string[]): Promise<(QueueProbe & { more?: boolean })[]> {
  const others = await execute<{ name: string }>(
    db,
    sql`
    SELECT value AS name FROM ${distinctValues(jobCatalog.queue)} q
     WHERE NOT (value = ANY(${sql.param(known)}::text[])) LIMIT ${OTHER_QUEUE_SCAN + 1}`,
  );
  const more = others.length > OTHER_QUEUE_SCAN;
  const names = [...known, ...others.slice(0, OTHER_QUEUE_SCAN).map((o) => o.name)];
  const rows = await execute<QueueProbe>(
    db,
    sql`
    SELECT n.name, s.paused,
           (SELECT count(*)::int FROM (
              SELECT 1 FROM jobs_live l WHERE l.queue = n.name AND l.state = 'queued' LIMIT ${METRICS_COUNT_CAP + 1}) x) AS queued,
           (SELECT extract(epoch FROM now() - min(x.not_before))::float8 FROM (
              SELECT l.not_before FROM jobs_live l WHERE l.queue = n.name AND l.state = 'queued'
               ORDER BY l.priority, l.fair_tag, l.not_before, l.id LIMIT ${OLDEST_SCAN}) x
             WHERE x.not_before <= now()) AS oldest_due_age,
           (SELECT json_object_agg(y.state, y.n) FROM (
              SELECT x.state, count(*)::int AS n FROM (
                SELECT l.state FROM jobs_live l WHERE l.queue = n.name AND l.state IN ('claimed', 'running', 'cancelling') LIMIT ${METRICS_COUNT_CAP + 1}) x
               GROUP BY x.state) y) AS leased
      FROM unnest(${sql.param(names)}::text[]) AS n(name) LEFT JOIN queues s ON s.name = n.name
     ORDER BY n.name`,
  );
  return rows.map((r) => ({ ...r, more }));
}
