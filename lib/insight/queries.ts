import type { Db } from "../db/client";
import type { JobEvent, JobState, RejectionKind, RunOutcome } from "../fsm/table";
import { LEASED_STATES } from "../fsm/table";
import { LATENCY_SAMPLE, POISON_LOOKBACK_MS, POISON_LOSSES, SILENT_AFTER_MS, WINDOWS, type WindowKey } from "./windows";

/*
 * The aggregates behind the insight pages. Each reads a bounded recent window
 * through an index (named beside each query; EXPLAIN figures in docs/insight.md),
 * so a refresh costs the same at a thousand jobs or ten million.
 */

const ms = (n: number) => `${n} milliseconds`;

export type ThroughputPoint = { t: string; succeeded: number; failed: number; leaseExpired: number; other: number; failureRate: number | null };

/**
 * Attempts that ended in each time step of the window, by outcome; the failure
 * rate is failed + lease_expired over all ended attempts.
 * Served by job_runs_finished_cover_idx (finished_at) INCLUDE (outcome, …): index only.
 */
export async function throughput(sql: Db, window: WindowKey, now = new Date()): Promise<ThroughputPoint[]> {
  const w = WINDOWS[window];
  const from = new Date(Math.floor((now.getTime() - w.ms) / w.stepMs) * w.stepMs + w.stepMs);
  const rows = await sql<{ t: Date; outcome: RunOutcome; n: number }[]>`
    SELECT date_bin(${ms(w.stepMs)}::interval, finished_at, ${from}) AS t, outcome, count(*)::int AS n
      FROM job_runs
     WHERE finished_at >= ${from} AND finished_at < ${new Date(from.getTime() + w.ms)}
     GROUP BY 1, 2`;
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

/**
 * Queue wait (from the job becoming claimable to the claim) and run time
 * (started to ended) percentiles per job type, over attempts that ended in the
 * window. The claimable moment is the job's last event into `queued` before the
 * claim (submit, retry, reclaim, replay, release).
 *
 * Bounded: the newest LATENCY_SAMPLE attempts of the window (a sample the size
 * of a few minutes of a busy system), so a refresh costs the same at any volume.
 * Served by job_runs_finished_cover_idx walked backwards for the sample, then per
 * attempt jobs_pkey for the type and job_events_job_version_cover_idx (index only)
 * for the claimable moment.
 */
export async function latencyByType(sql: Db, window: WindowKey, now = new Date()): Promise<TypeLatency[]> {
  const from = new Date(now.getTime() - WINDOWS[window].ms);
  return sql<TypeLatency[]>`
    WITH r AS (
      SELECT job_id, attempt, claimed_at, started_at, finished_at FROM job_runs
       WHERE finished_at >= ${from} AND finished_at <= ${now}
       ORDER BY finished_at DESC LIMIT ${LATENCY_SAMPLE}),
    a AS (
      SELECT j.type,
             extract(epoch FROM r.claimed_at - q.at) * 1000 AS queue_ms,
             extract(epoch FROM r.finished_at - r.started_at) * 1000 AS run_ms
        FROM r
        JOIN jobs j ON j.id = r.job_id
        LEFT JOIN LATERAL (
          SELECT e.at FROM job_events e
           WHERE e.job_id = r.job_id AND e.to_state = 'queued' AND e.at <= r.claimed_at
             AND e.at >= j.created_at -- no event predates its job: prunes job_events' older day partitions
           ORDER BY e.state_version DESC LIMIT 1) q ON true)
    SELECT type, count(*)::int AS attempts,
           coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY queue_ms), 0)::float8 AS queue_p50,
           coalesce(percentile_disc(0.95) WITHIN GROUP (ORDER BY queue_ms), 0)::float8 AS queue_p95,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY run_ms)::float8 AS run_p50,
           percentile_disc(0.95) WITHIN GROUP (ORDER BY run_ms)::float8 AS run_p95
      FROM a GROUP BY type ORDER BY attempts DESC, type LIMIT 20`;
}

export type ErrorClassRow = { errorClass: string; attempts: number; jobs: number; lastAt: Date };

/**
 * The busiest error classes among attempts that ended in the window.
 * Served by job_runs_finished_cover_idx (finished_at) INCLUDE (outcome, error_class, job_id):
 * an index-only scan of the window, no table rows read.
 */
export async function busiestErrors(sql: Db, window: WindowKey, now = new Date(), limit = 8): Promise<ErrorClassRow[]> {
  const from = new Date(now.getTime() - WINDOWS[window].ms);
  return sql<ErrorClassRow[]>`
    SELECT error_class, count(*)::int AS attempts, count(DISTINCT job_id)::int AS jobs, max(finished_at) AS last_at
      FROM job_runs
     WHERE finished_at >= ${from} AND finished_at <= ${now} AND error_class IS NOT NULL
     GROUP BY error_class ORDER BY attempts DESC, error_class LIMIT ${limit}`;
}

export type PoisonSuspect = {
  jobId: string;
  tenantId: string;
  type: string;
  queue: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  losses: number;
  lastLossAt: Date;
  /** The workers whose lease expired on it, oldest attempt first, and whether each is now silent or stopped. */
  workers: { id: string; attempt: number; status: WorkerStatus | "unknown" }[];
};

/**
 * Jobs whose attempts ended `lease_expired` at least POISON_LOSSES times in the
 * lookback: they kill or hang their workers. Served by job_runs_lease_lost_idx
 * (finished_at DESC, job_id) WHERE outcome = 'lease_expired' — losses are rare,
 * so this reads only them — then jobs_pkey and workers_pkey.
 */
export async function poisonSuspects(sql: Db, now = new Date(), limit = 20): Promise<PoisonSuspect[]> {
  const from = new Date(now.getTime() - POISON_LOOKBACK_MS);
  const rows = await sql<(Omit<PoisonSuspect, "workers"> & { workers: { id: string; attempt: number; lastSeenAt: string | null; stoppedAt: string | null }[] })[]>`
    WITH lost AS (
      SELECT job_id, count(*)::int AS losses, max(finished_at) AS last_loss_at
        FROM job_runs
       WHERE outcome = 'lease_expired' AND finished_at >= ${from}
       GROUP BY job_id HAVING count(*) >= ${POISON_LOSSES}
       ORDER BY last_loss_at DESC LIMIT ${limit})
    SELECT l.job_id, j.tenant_id, j.type, j.queue, j.state, j.attempt, j.max_attempts, l.losses, l.last_loss_at,
           (SELECT json_agg(json_build_object('id', r.worker_id, 'attempt', r.attempt,
                                              'lastSeenAt', w.last_seen_at, 'stoppedAt', w.stopped_at) ORDER BY r.attempt)
              FROM job_runs r LEFT JOIN workers w ON w.id = r.worker_id
             WHERE r.job_id = l.job_id AND r.outcome = 'lease_expired') AS workers
      FROM lost l JOIN jobs j ON j.id = l.job_id
     ORDER BY l.last_loss_at DESC`;
  return rows.map((r) => ({
    ...r,
    workers: (r.workers ?? []).map((w) => ({
      id: w.id,
      attempt: w.attempt,
      status: w.lastSeenAt ? workerStatus(new Date(w.lastSeenAt), w.stoppedAt ? new Date(w.stoppedAt) : null, now) : "unknown",
    })),
  }));
}

export type WorkerStatus = "live" | "silent" | "stopped";

export function workerStatus(lastSeenAt: Date, stoppedAt: Date | null, now: Date): WorkerStatus {
  if (stoppedAt) return "stopped";
  return now.getTime() - lastSeenAt.getTime() > SILENT_AFTER_MS ? "silent" : "live";
}

export type WorkerRow = {
  id: string;
  host: string;
  pid: number;
  queues: string[];
  concurrency: number;
  startedAt: Date;
  lastSeenAt: Date;
  stoppedAt: Date | null;
  status: WorkerStatus;
  heartbeatAgeMs: number;
  finished: number;
  failed: number;
  reclaimed: number;
  attempts: number;
  current: { id: string; type: string; state: JobState; attempt: number; heartbeatAt: Date | null }[];
};

/** Workers seen in the last day. */
const WORKER_LOOKBACK_MS = 24 * 3_600_000;
/** Their attempts are counted over the last hour: a live page, and a bounded read per worker. */
export const WORKER_COUNTS_MS = 3_600_000;

/**
 * Workers seen in the last day (live first), with their attempts of the last hour
 * by outcome and the jobs they hold now.
 * Served by workers_last_seen_idx, job_runs_worker_idx (worker_id, claimed_at DESC)
 * per worker, and for the held jobs jobs_state_created_idx on the leased states
 * (only live work, a few rows per worker).
 */
export async function listWorkers(sql: Db, now = new Date()): Promise<WorkerRow[]> {
  const since = new Date(now.getTime() - WORKER_LOOKBACK_MS);
  const countsSince = new Date(now.getTime() - WORKER_COUNTS_MS);
  const workers = await sql<Omit<WorkerRow, "status" | "heartbeatAgeMs" | "current">[]>`
    SELECT w.id, w.host, w.pid, w.queues, w.concurrency, w.started_at, w.last_seen_at, w.stopped_at,
           coalesce(c.finished, 0) AS finished, coalesce(c.failed, 0) AS failed,
           coalesce(c.reclaimed, 0) AS reclaimed, coalesce(c.attempts, 0) AS attempts
      FROM workers w
      LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE outcome = 'succeeded')::int AS finished,
               count(*) FILTER (WHERE outcome IN ('failed', 'abandoned'))::int AS failed,
               count(*) FILTER (WHERE outcome = 'lease_expired')::int AS reclaimed,
               count(*)::int AS attempts
          FROM job_runs r WHERE r.worker_id = w.id AND r.claimed_at >= ${countsSince}) c ON true
     WHERE w.last_seen_at >= ${since} OR w.stopped_at IS NULL
     ORDER BY (w.stopped_at IS NULL) DESC, w.last_seen_at DESC, w.id
     LIMIT 500`;
  const held = await sql<{ id: string; type: string; state: JobState; attempt: number; heartbeatAt: Date | null; leaseOwner: string }[]>`
    SELECT id, type, state, attempt, heartbeat_at, lease_owner FROM jobs
     WHERE state = ANY(${LEASED_STATES as unknown as string[]}::job_state[])
     ORDER BY heartbeat_at DESC NULLS LAST LIMIT 5000`;
  const byOwner = new Map<string, WorkerRow["current"]>();
  for (const { leaseOwner, ...j } of held) {
    const list = byOwner.get(leaseOwner) ?? [];
    list.push(j);
    byOwner.set(leaseOwner, list);
  }
  return workers.map((w) => ({
    ...w,
    status: workerStatus(w.lastSeenAt, w.stoppedAt, now),
    heartbeatAgeMs: Math.max(0, now.getTime() - w.lastSeenAt.getTime()),
    current: byOwner.get(w.id) ?? [],
  }));
}

export type RejectionRow = {
  id: string;
  jobId: string;
  tenantId: string | null;
  event: JobEvent;
  kind: RejectionKind;
  actorKind: string;
  actorId: string;
  expectedState: JobState | null;
  expectedVersion: number | null;
  currentState: JobState | null;
  currentVersion: number | null;
  reason: string;
  at: Date;
};

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
export async function listRejections(sql: Db, f: RejectionFilters): Promise<RejectionPage> {
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 200);
  const after = decodeRejectionCursor(f.after);
  if (f.job && !UUID.test(f.job)) return { rows: [], next: null };
  const rows = await sql<RejectionRow[]>`
    SELECT id, job_id, tenant_id, event, kind, actor_kind, actor_id, expected_state, expected_version,
           current_state, current_version, reason, at
      FROM transition_rejections
     WHERE TRUE
       ${f.kind ? sql`AND kind = ${f.kind}` : sql``}
       ${f.event ? sql`AND event = ${f.event}` : sql``}
       ${f.actor ? sql`AND actor_id = ${f.actor}` : sql``}
       ${f.job ? sql`AND job_id = ${f.job}` : sql``}
       ${after !== null ? sql`AND id < ${after.toString()}` : sql``}
     ORDER BY id DESC LIMIT ${limit + 1}`;
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  return { rows: page, next: more ? (page.at(-1)?.id ?? null) : null };
}

export type DriftStatus = { count: number; capped: boolean; latest: { id: string; jobId: string; reason: string; at: Date } | null };

const DRIFT_CAP = 1000;

/**
 * Whether anything ever wrote the jobs table outside the write path: the drift
 * rejections, counted up to a cap. Served by transition_rejections_kind_idx
 * (kind, at DESC): one index range, usually empty.
 */
export async function driftStatus(sql: Db): Promise<DriftStatus> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM transition_rejections WHERE kind = 'drift' LIMIT ${DRIFT_CAP + 1}) x`;
  const n = row?.n ?? 0;
  if (n === 0) return { count: 0, capped: false, latest: null };
  const [latest] = await sql<{ id: string; jobId: string; reason: string; at: Date }[]>`
    SELECT id, job_id, reason, at FROM transition_rejections WHERE kind = 'drift' ORDER BY at DESC LIMIT 1`;
  return { count: Math.min(n, DRIFT_CAP), capped: n > DRIFT_CAP, latest: latest ?? null };
}

export type TransitionCount = { from: JobState | null; event: JobEvent; to: JobState; n: number };

/**
 * Applied transitions per (from, event, to) in the window.
 * Served by job_events_at_idx (at DESC).
 */
export async function transitionCounts(sql: Db, window: WindowKey, now = new Date()): Promise<TransitionCount[]> {
  const from = new Date(now.getTime() - WINDOWS[window].ms);
  return sql<TransitionCount[]>`
    SELECT from_state AS "from", event, to_state AS "to", count(*)::int AS n
      FROM job_events WHERE at >= ${from} AND at <= ${now}
     GROUP BY 1, 2, 3`;
}

export type RecentRejection = Pick<RejectionRow, "id" | "jobId" | "event" | "kind" | "actorKind" | "actorId" | "reason" | "at">;

/** The newest refusals, for the overview. Served by transition_rejections_pkey walked backwards. */
export async function recentRejections(sql: Db, limit = 8): Promise<RecentRejection[]> {
  return sql<RecentRejection[]>`
    SELECT id, job_id, event, kind, actor_kind, actor_id, reason, at
      FROM transition_rejections ORDER BY id DESC LIMIT ${limit}`;
}
