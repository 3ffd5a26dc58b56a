import type { Db } from "../db/client";
import type { RejectionRecord } from "../jobs/queries";
import type { JobEvent, JobState, RejectionKind, RunOutcome } from "../fsm/table";
import { TRANSITIONS } from "../fsm/table";
import { WORKER_LOST_CLASS } from "../jobs/poison";
import { LATENCY_SAMPLE, POISON_LOOKBACK_MS, POISON_SUSPECT_CRASHES, WINDOWS, type WindowKey } from "./windows";
import { workerStatus, type WorkerStatus } from "./workers";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The workers page's query lives beside its own types; the pages import the insight queries from here.
export { listWorkers, workerStatus, WORKER_RECLAIM_CAP, type WorkerRow, type WorkerStatus } from "./workers";

/*
 * The aggregates behind the insight pages, on the storage of drizzle/0012 (docs/decisions.md,
 * "The narrow hot path"). Each reads a bounded recent window or looks jobs up by key (the index
 * is named beside each query; EXPLAIN figures in docs/insight.md), so a refresh costs the same
 * at a thousand jobs or ten million:
 * - windows of ended attempts through the BRIN on job_attempts.finished_at, and of the other
 *   transitions through job_log's day partitions and the BRIN on job_log.at;
 * - rare rows (lease losses, attempts that did not succeed) through their partial btrees;
 * - a job by its primary key (the `jobs` view is fine for that, not for scans).
 */

const ms = (n: number) => `${n} milliseconds`;

export type ThroughputPoint = { t: string; succeeded: number; failed: number; leaseExpired: number; other: number; failureRate: number | null };

/**
 * Attempts that ended in each time step of the window, by outcome; the failure
 * rate is failed + lease_expired over all ended attempts.
 * Served by job_attempts_finished_brin: the window's block ranges, then their rows.
 */
export async function throughput(db: Db, window: WindowKey, now = new Date()): Promise<ThroughputPoint[]> {
  const w = WINDOWS[window];
  const from = new Date(Math.floor((now.getTime() - w.ms) / w.stepMs) * w.stepMs + w.stepMs);
  const rows = await execute<{ t: Date; outcome: RunOutcome; n: number }>(
    db,
    sql`
    SELECT date_bin(${ms(w.stepMs)}::interval, finished_at, ${from}) AS t, outcome, count(*)::int AS n
      FROM job_attempts
     WHERE finished_at >= ${from} AND finished_at < ${new Date(from.getTime() + w.ms)}
     GROUP BY 1, 2`,
  );
  const points = new Map<number, ThroughputPoint>();
  for (let t = from.getTime(); t < from.getTime() + w.ms; t += w.stepMs) {
    points.set(t, { t: new Date(t).toISOString(), succeeded: 0, failed: 0, leaseExpired: 0, other: 0, failureRate: null });
  }
  for (const r of rows) {
    const p = points.get(r.t.getTime());
    if (!p) continue;
    if (r.outcome === "succeeded") p.succeeded += r.n;
    else if (r.outcome === "failed") p.failed += r.n;
    else if (r.outcome === "lease_expired") p.leaseExpired += r.n;
    else p.other += r.n;
  }
  for (const p of points.values()) {
    const ended = p.succeeded + p.failed + p.leaseExpired + p.other;
    p.failureRate = ended ? (p.failed + p.leaseExpired) / ended : null;
  }
  return [...points.values()];
}

export type TypeLatency = { type: string; attempts: number; queueP50: number; queueP95: number; runP50: number | null; runP95: number | null };

/** The windows the latency sample tries, narrowest first: a minute, doubling, up to the whole window. */
export function sampleSteps(windowMs: number): number[] {
  const steps: number[] = [];
  for (let s = 60_000; s < windowMs; s *= 2) steps.push(s);
  steps.push(windowMs);
  return steps;
}

/**
 * Where the newest `sample` attempts that ended by `now` begin: the narrowest of `sampleSteps`
 * ending at `now` that holds that many (or the whole window, when it holds fewer). A BRIN
 * gives a window's rows in no order, so "the newest N" cannot be read newest first; each probe
 * counts at most `sample` rows of a window twice as wide as the last, so a busy system stops
 * after a minute or two and a quiet one widens to the whole window, and the sample's sort
 * reads only the window found, never the whole day.
 */
export async function latencySampleWindow(
  db: Db,
  window: WindowKey,
  now = new Date(),
  sample = LATENCY_SAMPLE,
): Promise<{ from: Date; probes: number }> {
  const steps = sampleSteps(WINDOWS[window].ms);
  let probes = 0;
  for (const step of steps) {
    const from = new Date(now.getTime() - step);
    probes++;
    if (step === steps.at(-1)) return { from, probes };
    const [r] = await execute<{ n: number }>(
      db,
      sql`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM job_attempts WHERE finished_at >= ${from} AND finished_at <= ${now} LIMIT ${sample}) x`,
    );
    if ((r?.n ?? 0) >= sample) return { from, probes };
  }
  throw new Error("unreachable: the last step is the whole window");
}

/**
 * Queue wait (from the job becoming claimable to the claim) and run time
 * (started to ended) percentiles per job type, over the newest `sample` attempts
 * that ended in the window (LATENCY_SAMPLE, a few minutes of a busy system).
 *
 * The claimable moment is the transition just before the claim (version
 * claim_version − 1), which moved the job into `queued`: the submit (its catalog
 * row), a job_log row (retry, reclaim, replay) or the previous attempt's closing
 * event (a worker's release).
 * Served by job_attempts_finished_brin for the window `latencySampleWindow` found,
 * then per attempt job_catalog_pkey, job_log_job_version_idx (the partitions
 * between the job's submit and the claim only) and job_attempts_pkey.
 */
export async function latencyByType(db: Db, window: WindowKey, now = new Date(), sample = LATENCY_SAMPLE): Promise<TypeLatency[]> {
  const { from } = await latencySampleWindow(db, window, now, sample);
  return execute<TypeLatency>(
    db,
    sql`
    WITH r AS (
      SELECT job_id, attempt, claim_version, claimed_at, started_at, finished_at FROM job_attempts
       WHERE finished_at >= ${from} AND finished_at <= ${now}
       ORDER BY finished_at DESC LIMIT ${sample}),
    a AS (
      SELECT c.type,
             extract(epoch FROM r.claimed_at - CASE WHEN r.claim_version = 1 THEN c.created_at ELSE coalesce(q.at, p.finished_at) END) * 1000 AS queue_ms,
             extract(epoch FROM r.finished_at - r.started_at) * 1000 AS run_ms
        FROM r
        JOIN job_catalog c ON c.id = r.job_id
        -- Each lookup runs only when the one before found nothing (the first condition of each is
        -- on the outer row only: a one-time filter, no index descended for a first claim).
        LEFT JOIN LATERAL (
          SELECT e.at FROM job_log e
           WHERE r.claim_version > 1 AND e.job_id = r.job_id AND e.state_version = r.claim_version - 1
             AND e.at >= c.created_at AND e.at <= r.claimed_at -- prunes job_log's other day partitions
           LIMIT 1) q ON true
        LEFT JOIN LATERAL (
          SELECT p.finished_at FROM job_attempts p
           WHERE r.claim_version > 1 AND q.at IS NULL
             AND p.job_id = r.job_id AND p.attempt = r.attempt - 1 AND p.end_version = r.claim_version - 1) p ON true)
    SELECT type, count(*)::int AS attempts,
           coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY queue_ms), 0)::float8 AS queue_p50,
           coalesce(percentile_disc(0.95) WITHIN GROUP (ORDER BY queue_ms), 0)::float8 AS queue_p95,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY run_ms)::float8 AS run_p50,
           percentile_disc(0.95) WITHIN GROUP (ORDER BY run_ms)::float8 AS run_p95
      FROM a GROUP BY type ORDER BY attempts DESC, type LIMIT 20`,
  );
}

export type ErrorClassRow = { errorClass: string; attempts: number; jobs: number; lastAt: Date };

/**
 * The busiest error classes among attempts that ended in the window (only an
 * attempt that did not succeed carries one). Served by job_attempts_finished_brin:
 * the window's rows, filtered. (job_attempts_worker_trouble_idx would find the
 * same rows, but they lie on nearly every page of the window: no page saved.)
 */
export async function busiestErrors(db: Db, window: WindowKey, now = new Date(), limit = 8): Promise<ErrorClassRow[]> {
  const from = new Date(now.getTime() - WINDOWS[window].ms);
  const rows = await execute<Omit<ErrorClassRow, "errorClass"> & { errorClass: string | null }>(
    db,
    sql`
    SELECT error_class, count(*)::int AS attempts, count(DISTINCT job_id)::int AS jobs, max(finished_at) AS last_at
      FROM job_attempts
     WHERE finished_at >= ${from} AND finished_at <= ${now} AND outcome <> 'succeeded'
     GROUP BY error_class ORDER BY error_class IS NULL, attempts DESC, error_class LIMIT ${limit + 1}`,
  );
  // The attempts without a class (cancelled ones) are one group, dropped here: "error_class IS NOT
  // NULL" in the query let the planner AND in a scan of the whole job_attempts_error_class_idx.
  return rows.flatMap(({ errorClass, ...r }) => (errorClass === null ? [] : [{ errorClass, ...r }])).slice(0, limit);
}

export type PoisonSuspect = {
  jobId: string;
  tenantId: string;
  type: string;
  queue: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  /** Worker crashes blamed on it (lib/jobs/poison.ts). */
  crashes: number;
  lastCrashAt: Date;
  /** Stopped as a poison job (its last attempt's class is PoisonJob). */
  poisoned: boolean;
  /** The other jobs its crashes took down (their attempts lost on the same workers, handed back as bystanders). */
  tookDown: number;
  /** The workers that died on it, oldest attempt first, and whether each is now silent or stopped. */
  workers: { id: string; attempt: number; status: WorkerStatus | "unknown" }[];
};

/**
 * Jobs blamed for at least POISON_SUSPECT_CRASHES worker crashes in the lookback: they kill or hang
 * their workers. A crash is a lost lease the supervisor blamed on the job; the other jobs the same
 * dead worker took down are bystanders (error class WorkerLost), counted as what it took down and
 * never suspects themselves. Served by job_attempts_lease_lost_idx (finished_at DESC, job_id) WHERE
 * outcome = 'lease_expired' — losses are rare, so this reads only them — then per suspect the `jobs`
 * view by id, job_attempts_pkey, job_attempts_worker_trouble_idx and workers_pkey.
 */
export async function poisonSuspects(db: Db, now = new Date(), limit = 20): Promise<PoisonSuspect[]> {
  const from = new Date(now.getTime() - POISON_LOOKBACK_MS);
  const rows = await execute<
    Omit<PoisonSuspect, "workers"> & { workers: { id: string; attempt: number; lastSeenAt: string | null; stoppedAt: string | null }[] }
  >(
    db,
    sql`
    WITH lost AS (
      SELECT job_id, count(*)::int AS crashes, max(finished_at) AS last_crash_at
        FROM job_attempts
       WHERE outcome = 'lease_expired' AND finished_at >= ${from} AND error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}
       GROUP BY job_id HAVING count(*) >= ${POISON_SUSPECT_CRASHES}
       ORDER BY last_crash_at DESC LIMIT ${limit})
    SELECT l.job_id, j.tenant_id, j.type, j.queue, j.state, j.attempt, j.max_attempts, l.crashes, l.last_crash_at,
           EXISTS (SELECT 1 FROM job_attempts p WHERE p.job_id = l.job_id AND p.error_class = 'PoisonJob') AS poisoned,
           (SELECT count(*)::int FROM job_attempts o
             WHERE o.worker_id IN (SELECT r.worker_id FROM job_attempts r WHERE r.job_id = l.job_id AND r.outcome = 'lease_expired' AND r.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})
               AND o.job_id <> l.job_id AND o.outcome <> 'succeeded' AND o.outcome = 'lease_expired' AND o.error_class = ${WORKER_LOST_CLASS}) AS took_down,
           (SELECT json_agg(json_build_object('id', r.worker_id, 'attempt', r.attempt,
                                              'lastSeenAt', w.last_seen_at, 'stoppedAt', w.stopped_at) ORDER BY r.attempt)
              FROM job_attempts r LEFT JOIN workers w ON w.id = r.worker_id
             WHERE r.job_id = l.job_id AND r.outcome = 'lease_expired' AND r.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}) AS workers
      FROM lost l
      CROSS JOIN LATERAL (SELECT * FROM jobs v WHERE v.id = l.job_id LIMIT 1) j
     ORDER BY l.last_crash_at DESC`,
  );
  return rows.map((r) => ({
    ...r,
    workers: (r.workers ?? []).map((w) => ({
      id: w.id,
      attempt: w.attempt,
      status: w.lastSeenAt ? workerStatus(new Date(w.lastSeenAt), w.stoppedAt ? new Date(w.stoppedAt) : null, now) : "unknown",
    })),
  }));
}

/** A refused transition in the cross-job list: the job page's record, with its job and tenant. */
export type RejectionRow = Omit<RejectionRecord, "event"> & { jobId: string; tenantId: string | null; event: JobEvent };

export type RejectionFilters = { kind?: RejectionKind; event?: JobEvent; actor?: string; job?: string; after?: string; limit?: number };
export type RejectionPage = { rows: RejectionRow[]; next: string | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An opaque keyset cursor: the id of the last row shown. */
export function decodeRejectionCursor(s: string | undefined): bigint | null {
  if (!s || !/^\d{1,19}$/.test(s)) return null;
  return BigInt(s);
}

/**
 * Refused transitions, newest first (by id, the order they were recorded),
 * keyset-paged. Served by transition_rejections_pkey walked backwards, or with
 * a filter by transition_rejections_{kind,event,actor}_id_idx / _job_idx.
 */
export async function listRejections(db: Db, f: RejectionFilters): Promise<RejectionPage> {
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 200);
  const after = decodeRejectionCursor(f.after);
  if (f.job && !UUID.test(f.job)) return { rows: [], next: null };
  const rows = await execute<RejectionRow>(
    db,
    sql`
    SELECT id, job_id, tenant_id, event, kind, actor_kind, actor_id, expected_state, expected_version,
           current_state, current_version, reason, at
      FROM transition_rejections
     WHERE TRUE
       ${f.kind ? sql`AND kind = ${f.kind}` : sql``}
       ${f.event ? sql`AND event = ${f.event}` : sql``}
       ${f.actor ? sql`AND actor_id = ${f.actor}` : sql``}
       ${f.job ? sql`AND job_id = ${f.job}` : sql``}
       ${after !== null ? sql`AND id < ${after.toString()}` : sql``}
     ORDER BY id DESC LIMIT ${limit + 1}`,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  return { rows: page, next: more ? (page.at(-1)?.id ?? null) : null };
}

export type DriftStatus = { count: number; capped: boolean; latest: { id: string; jobId: string; reason: string; at: Date } | null };

const DRIFT_CAP = 1000;

/**
 * Whether anything ever wrote a job's rows outside the write path: the drift
 * rejections, counted up to a cap. Served by transition_rejections_kind_idx
 * (kind, at DESC): one index range, usually empty.
 */
export async function driftStatus(db: Db): Promise<DriftStatus> {
  const [row] = await execute<{ n: number }>(
    db,
    sql`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM transition_rejections WHERE kind = 'drift' LIMIT ${DRIFT_CAP + 1}) x`,
  );
  const n = row?.n ?? 0;
  if (n === 0) return { count: 0, capped: false, latest: null };
  const [latest] = await execute<{ id: string; jobId: string; reason: string; at: Date }>(
    db,
    sql`
    SELECT id, job_id, reason, at FROM transition_rejections WHERE kind = 'drift' ORDER BY at DESC LIMIT 1`,
  );
  return { count: Math.min(n, DRIFT_CAP), capped: n > DRIFT_CAP, latest: latest ?? null };
}

export type TransitionCount = { from: JobState | null; event: JobEvent; to: JobState; n: number };

const CLAIM = TRANSITIONS.find((t) => t.event === "claim")!;
const START = TRANSITIONS.find((t) => t.event === "start")!;

/**
 * Applied transitions per (from, event, to) in the window, from where each is stored:
 * submits from job_catalog_created_idx (index only); the transitions no worker applied
 * from job_log (the window's day partitions, job_log_at_brin); a worker's closing events
 * from job_attempts_finished_brin, and its claims and starts from the attempts that
 * ended since the window began (same index) plus the open attempts of the leased live
 * rows (jobs_live_lease_idx, jobs_live_waiting_idx: live work only).
 */
export async function transitionCounts(db: Db, window: WindowKey, now = new Date()): Promise<TransitionCount[]> {
  const from = new Date(now.getTime() - WINDOWS[window].ms);
  const [rows, worker] = await Promise.all([
    execute<TransitionCount>(
      db,
      sql`
      SELECT NULL::job_state AS "from", 'submit'::job_event AS event, 'queued'::job_state AS "to", count(*)::int AS n
        FROM job_catalog WHERE created_at >= ${from} AND created_at <= ${now}
      UNION ALL
      SELECT from_state, event, to_state, count(*)::int FROM job_log WHERE at >= ${from} AND at <= ${now} GROUP BY 1, 2, 3
      UNION ALL
      SELECT end_from, end_event, end_to, count(*)::int FROM job_attempts
       WHERE finished_at >= ${from} AND finished_at <= ${now} AND end_event IS NOT NULL GROUP BY 1, 2, 3`,
    ),
    execute<{ claims: number; starts: number }>(
      db,
      sql`
      SELECT coalesce(sum(claims), 0)::int AS claims, coalesce(sum(starts), 0)::int AS starts FROM (
        SELECT count(*) FILTER (WHERE claimed_at >= ${from} AND claimed_at <= ${now}) AS claims,
               count(*) FILTER (WHERE started_at >= ${from} AND started_at <= ${now}) AS starts
          FROM job_attempts WHERE finished_at >= ${from}
        UNION ALL
        SELECT count(*) FILTER (WHERE run_claimed_at >= ${from} AND run_claimed_at <= ${now}),
               count(*) FILTER (WHERE run_started_at >= ${from} AND run_started_at <= ${now})
          FROM jobs_live WHERE state IN ('claimed', 'running', 'cancelling')
        UNION ALL
        SELECT count(*) FILTER (WHERE run_claimed_at >= ${from} AND run_claimed_at <= ${now}),
               count(*) FILTER (WHERE run_started_at >= ${from} AND run_started_at <= ${now})
          FROM jobs_live WHERE state = 'paused') x`,
    ),
  ]);
  const out = rows.filter((r) => r.n > 0);
  const [w] = worker;
  if (w?.claims) out.push({ from: CLAIM.from, event: CLAIM.event, to: CLAIM.to, n: w.claims });
  if (w?.starts) out.push({ from: START.from, event: START.event, to: START.to, n: w.starts });
  return out;
}

export type RecentRejection = Pick<RejectionRow, "id" | "jobId" | "event" | "kind" | "actorKind" | "actorId" | "reason" | "at">;

/** The newest refusals, for the overview. Served by transition_rejections_pkey walked backwards. */
export async function recentRejections(db: Db, limit = 8): Promise<RecentRejection[]> {
  return execute<RecentRejection>(
    db,
    sql`
    SELECT id, job_id, event, kind, actor_kind, actor_id, reason, at
      FROM transition_rejections ORDER BY id DESC LIMIT ${limit}`,
  );
}
