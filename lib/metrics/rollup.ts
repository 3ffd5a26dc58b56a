import type { Db } from "../db/client";
import { HISTOGRAMS, INF, type CounterKey, type HistogramKey } from "./series";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * The counters and histograms of GET /metrics, rolled up from the history by the supervisor's tick,
 * never by the hot path: the worker's statements (lib/jobs/write.ts, claim.ts, round.ts)
 * are unchanged and pay nothing for the metrics.
 *
 * Each pass takes the window (cursor, now − settle] and adds, in one transaction with the cursor's
 * move, what the history holds for it:
 * - job_attempts by finished_at (job_attempts_finished_brin), each row's queue and type from
 *   job_catalog_pkey: attempts started and ended by outcome, jobs finished / dead / cancelled by
 *   the worker's closing event, queue wait and run time;
 * - job_log by at (its day partitions, job_log_at_brin): jobs that went dead or were cancelled by an
 *   operator, a tenant or the supervisor, and the supervisor's reclaims and abandons;
 * - job_catalog by created_at (job_catalog_created_idx): jobs submitted;
 * - transition_rejections by at (transition_rejections_at_idx), integrity_audits by at.
 *
 * `settle`: a row is written with the time its statement started and becomes visible when the
 * statement commits; the window stops `settleMs` short of now so that the rows of statements still
 * running are not left behind the cursor. Every hot statement is one autocommit statement of a few
 * milliseconds; the default of 5 s is three orders of magnitude above that.
 *
 * The same increments of each job type also go to `metric_history` under the hour they belong to (a
 * pass never spans two hours), for the per-type charts (lib/metrics/history.ts); 35 days are kept.
 *
 * The cursor row is locked with SKIP LOCKED: a second supervisor skips the pass instead of counting
 * the window twice. The first pass only places the cursor (counters start at zero; Prometheus needs
 * no history, and a first pass must not read 10M rows).
 */
export type RollupOptions = {
  /** How far behind now the window stops (default 5 s). */
  settleMs?: number;
  /** The longest window one pass reads (default 10 min): a supervisor that was down catches up in steps. */
  maxSpanMs?: number;
};

export type RollupResult = { ran: boolean; from: Date | null; to: Date | null; series: number };

const SOURCE = "history";
const HOUR_MS = 3_600_000;
/** How long the per-type history (metric_history) is kept. */
export const HISTORY_KEEP_MS = 35 * 24 * HOUR_MS;

export async function rollUpMetrics(db: Db, opts: RollupOptions = {}): Promise<RollupResult> {
  const settleMs = opts.settleMs ?? 5_000;
  const maxSpanMs = opts.maxSpanMs ?? 600_000;
  await execute(db, sql`INSERT INTO metric_cursors (source) VALUES (${SOURCE}) ON CONFLICT (source) DO NOTHING`);
  return (await db.transaction(async (tx) => {
    const [cursor] = await execute<{ uptoAt: Date | null; until: Date }>(
      tx,
      sql`
      SELECT upto_at, now() - ${settleMs} * interval '1 millisecond' AS until
        FROM metric_cursors WHERE source = ${SOURCE} FOR UPDATE SKIP LOCKED`,
    );
    if (!cursor) return { ran: false, from: null, to: null, series: 0 };
    if (!cursor.uptoAt) {
      await execute(tx, sql`UPDATE metric_cursors SET upto_at = ${cursor.until}, updated_at = now() WHERE source = ${SOURCE}`);
      return { ran: true, from: null, to: cursor.until, series: 0 };
    }
    const from = cursor.uptoAt;
    // A pass stops at the end of its hour: each of its increments then belongs to one hour of the history.
    const hourEnd = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
    const to = new Date(Math.min(cursor.until.getTime(), from.getTime() + maxSpanMs, hourEnd));
    if (to <= from) return { ran: true, from, to: from, series: 0 };
    const added = await execute(
      tx,
      sql`
      WITH w AS MATERIALIZED (
        SELECT metric, queue, type, label, sum(n) AS n FROM (${windowTotals(from, to)}) w GROUP BY metric, queue, type, label),
      hist AS (
        INSERT INTO metric_history AS h (type, bucket, metric, queue, label, value)
        SELECT type, ${new Date(hourEnd - HOUR_MS)}, metric, queue, label, n FROM w WHERE type <> ''
        ON CONFLICT (type, bucket, metric, queue, label) DO UPDATE SET value = h.value + excluded.value)
      INSERT INTO metric_totals AS t (metric, queue, type, label, value)
      SELECT metric, queue, type, label, n FROM w
      ON CONFLICT (metric, queue, type, label) DO UPDATE SET value = t.value + excluded.value`,
    );
    // Once an hour, as its last pass ends: the history older than it keeps is dropped.
    if (to.getTime() === hourEnd) await execute(tx, sql`DELETE FROM metric_history WHERE bucket < ${new Date(hourEnd - HISTORY_KEEP_MS)}`);
    await execute(tx, sql`UPDATE metric_cursors SET upto_at = ${to}, updated_at = now() WHERE source = ${SOURCE}`);
    return { ran: true, from, to, series: added.count };
  })) as RollupResult;
}

const key = (k: CounterKey) => k;
const hist = (k: HistogramKey, part: "bucket" | "sum" | "count") => `${k}_${part}`;

/** The window's increments: rows of (metric, queue, type, label, n). */
function windowTotals(from: Date, to: Date) {
  // A value's bucket: the first upper bound above it (width_bucket counts the bounds <= v, so a value
  // exactly on a bound lands in the next bucket: a float of seconds is on one almost never).
  const bucket = (v: string, k: HistogramKey) => {
    const b = HISTOGRAMS[k].buckets.join(",");
    return sql.raw(`coalesce(('{${b}}'::text[])[width_bucket(${v}, '{${b}}'::float8[]) + 1], '${INF}')`);
  };
  return sql`
    WITH r AS (
      SELECT a.job_id, a.attempt, a.claim_version, a.claimed_at, a.started_at, a.finished_at, a.outcome::text AS outcome,
             a.end_to::text AS end_to, c.queue, c.type, c.not_before, c.created_at
        FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id
       WHERE a.finished_at > ${from} AND a.finished_at <= ${to}),
    w AS (
      -- When the attempt's job became claimable: the submit (or its not_before) for a first claim,
      -- else the transition before the claim — a job_log row (retry, reclaim, replay) or the previous
      -- attempt's end (a release) — as the overview's latency chart reads it (lib/insight/queries.ts).
      SELECT r.queue, r.type,
             greatest(0, extract(epoch FROM r.claimed_at - CASE WHEN r.claim_version = 1 THEN greatest(r.created_at, r.not_before) ELSE coalesce(q.at, p.finished_at) END))::float8 AS v
        FROM r
        LEFT JOIN LATERAL (
          SELECT e.at FROM job_log e
           WHERE r.claim_version > 1 AND e.job_id = r.job_id AND e.state_version = r.claim_version - 1
             AND e.at >= r.created_at AND e.at <= r.claimed_at
             -- Prunes job_log to the days around the window: a job requeued (a replay) more than two
             -- days before its claim falls to the next lookup and, not found, is left out of the histogram.
             AND e.at >= ${from}::timestamptz - interval '2 days'
           LIMIT 1) q ON true
        LEFT JOIN LATERAL (
          SELECT p.finished_at FROM job_attempts p
           WHERE r.claim_version > 1 AND q.at IS NULL
             AND p.job_id = r.job_id AND p.attempt = r.attempt - 1 AND p.end_version = r.claim_version - 1) p ON true),
    x AS (
      SELECT queue, type, greatest(0, extract(epoch FROM finished_at - started_at))::float8 AS v FROM r WHERE started_at IS NOT NULL),
    l AS (
      SELECT e.event::text AS event, e.to_state::text AS to_state, e.actor_kind::text AS actor_kind, c.queue, c.type
        FROM job_log e JOIN job_catalog c ON c.id = e.job_id
       WHERE e.at > ${from} AND e.at <= ${to}
         AND (e.to_state IN ('dead', 'cancelled') OR (e.actor_kind = 'supervisor' AND e.event IN ('reclaim', 'abandon'))))
    SELECT ${key("attempts_started")} AS metric, queue, type, '' AS label, count(*)::float8 AS n FROM r WHERE started_at IS NOT NULL GROUP BY queue, type
    UNION ALL SELECT ${key("attempts_ended")}, queue, type, outcome, count(*) FROM r GROUP BY queue, type, outcome
    UNION ALL SELECT ${key("attempts_failed")}, queue, type, '', count(*) FROM r WHERE outcome = 'failed' GROUP BY queue, type
    UNION ALL SELECT ${key("jobs_finished")}, queue, type, '', count(*) FROM r WHERE end_to = 'succeeded' GROUP BY queue, type
    UNION ALL SELECT ${key("jobs_dead")}, queue, type, '', count(*) FROM r WHERE end_to = 'dead' GROUP BY queue, type
    UNION ALL SELECT ${key("jobs_cancelled")}, queue, type, '', count(*) FROM r WHERE end_to = 'cancelled' GROUP BY queue, type
    UNION ALL SELECT ${key("jobs_dead")}, queue, type, '', count(*) FROM l WHERE to_state = 'dead' GROUP BY queue, type
    UNION ALL SELECT ${key("jobs_cancelled")}, queue, type, '', count(*) FROM l WHERE to_state = 'cancelled' GROUP BY queue, type
    UNION ALL SELECT ${key("supervisor_actions")}, queue, type, event, count(*) FROM l WHERE actor_kind = 'supervisor' AND event IN ('reclaim', 'abandon') GROUP BY queue, type, event
    UNION ALL SELECT ${hist("queue_wait", "bucket")}, queue, type, ${bucket("v", "queue_wait")}, count(*) FROM w WHERE v IS NOT NULL GROUP BY 2, 3, 4
    UNION ALL SELECT ${hist("queue_wait", "sum")}, queue, type, '', sum(v) FROM w WHERE v IS NOT NULL GROUP BY queue, type
    UNION ALL SELECT ${hist("queue_wait", "count")}, queue, type, '', count(*) FROM w WHERE v IS NOT NULL GROUP BY queue, type
    UNION ALL SELECT ${hist("run", "bucket")}, queue, type, ${bucket("v", "run")}, count(*) FROM x GROUP BY 2, 3, 4
    UNION ALL SELECT ${hist("run", "sum")}, queue, type, '', sum(v) FROM x GROUP BY queue, type
    UNION ALL SELECT ${hist("run", "count")}, queue, type, '', count(*) FROM x GROUP BY queue, type
    UNION ALL SELECT ${key("jobs_enqueued")}, queue, type, '', count(*) FROM job_catalog
     WHERE created_at > ${from} AND created_at <= ${to} GROUP BY queue, type
    UNION ALL SELECT ${key("rejections")}, '', '', kind::text, count(*) FROM transition_rejections
     WHERE at > ${from} AND at <= ${to} GROUP BY kind
    UNION ALL SELECT ${key("integrity_audits")}, '', '', '', count(*) FROM integrity_audits WHERE at > ${from} AND at <= ${to} HAVING count(*) > 0
    UNION ALL SELECT ${key("integrity_mismatches")}, '', '', '', sum(mismatches) FROM integrity_audits WHERE at > ${from} AND at <= ${to} HAVING count(*) > 0`;
}

/**
 * Roll the metrics up from `since` to now at once (a pass per hour, back to back), when no pass has
 * run yet: the seeded demo's back-dated histories then appear in the per-type charts. A database
 * whose roll-up has already started is left to the supervisor.
 */
export async function catchUpMetrics(db: Db, since: Date): Promise<number> {
  const placed = await execute(db, sql`INSERT INTO metric_cursors (source, upto_at) VALUES (${SOURCE}, ${since}) ON CONFLICT (source) DO NOTHING`);
  if (placed.count === 0) return 0;
  // Up to where the first pass would stop now: the passes after it chase a moving "now" for no gain.
  const [{ until } = { until: new Date() }] = await execute<{ until: Date }>(db, sql`SELECT now() - interval '5 seconds' AS until`);
  let passes = 0;
  for (;;) {
    const r = await rollUpMetrics(db, { maxSpanMs: HOUR_MS });
    passes++;
    if (!r.ran || !r.to || r.to.getTime() >= until.getTime() || r.to.getTime() <= (r.from?.getTime() ?? 0)) return passes;
  }
}
