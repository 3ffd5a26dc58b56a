import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";
import { SILENT_AFTER_MS } from "./windows";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * live: heartbeating. draining: heartbeating, asked to drain (it finishes what it holds, then stops).
 * crashed: stopped heartbeating without saying it stopped (killed, crashed, cut off for over
 * SILENT_AFTER_MS). stopped: said it stopped (a drain, a SIGTERM).
 */
export type WorkerStatus = "live" | "draining" | "crashed" | "stopped";

export function workerStatus(lastSeenAt: Date, stoppedAt: Date | null, now: Date, drainRequestedAt: Date | null = null): WorkerStatus {
  if (stoppedAt) return "stopped";
  if (now.getTime() - lastSeenAt.getTime() > SILENT_AFTER_MS) return "crashed";
  return drainRequestedAt ? "draining" : "live";
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
  /** An operator asked it to drain: when, and who. */
  drainRequestedAt: Date | null;
  drainRequestedBy: string | null;
  status: WorkerStatus;
  heartbeatAgeMs: number;
  /** Since the worker started: the attempts it finished and failed (its own counters, written with its heartbeat). */
  finished: number;
  failed: number;
  /** Since the worker started: its attempts whose lease expired (the supervisor reclaimed or gave up the job). */
  reclaimed: number;
  /** The reclaimed count reached WORKER_RECLAIM_CAP: at least that many. */
  reclaimedCapped: boolean;
  attempts: number;
  current: { id: string; type: string; state: JobState; attempt: number; heartbeatAt: Date | null }[];
};

/** Workers seen in the last day. */
const WORKER_LOOKBACK_MS = 24 * 3_600_000;
/** A worker's lease losses are counted up to this many: a bounded read per worker. */
export const WORKER_RECLAIM_CAP = 1_000;

/**
 * Workers seen in the last day (live first; one that crashed longer ago is gone from the list), with what they did since they
 * started and the jobs they hold now. Finished and failed are the worker's own
 * counters (a successful attempt writes no index entry a count could use); the
 * leases it lost are its attempts that ended `lease_expired`, through
 * job_attempts_worker_trouble_idx (worker_id, finished_at DESC) WHERE outcome <> 'succeeded',
 * at most WORKER_RECLAIM_CAP each; the held jobs through jobs_live_lease_idx (lease_owner)
 * for claimed, running and cancelling, and jobs_live_waiting_idx for paused (live work only).
 */
export async function listWorkers(db: Db, now = new Date()): Promise<WorkerRow[]> {
  const since = new Date(now.getTime() - WORKER_LOOKBACK_MS);
  const workers = await execute<Omit<WorkerRow, "status" | "heartbeatAgeMs" | "current" | "attempts" | "reclaimedCapped">>(
    db,
    sql`
    SELECT w.id, w.host, w.pid, w.queues, w.concurrency, w.started_at, w.last_seen_at, w.stopped_at, w.drain_requested_at, w.drain_requested_by,
           w.succeeded::float8 AS finished, w.failed::float8 AS failed, coalesce(c.reclaimed, 0) AS reclaimed
      FROM workers w
      LEFT JOIN LATERAL (
        SELECT count(*)::int AS reclaimed FROM (
          SELECT 1 FROM job_attempts a
           WHERE a.worker_id = w.id AND a.finished_at >= w.started_at AND a.outcome <> 'succeeded' AND a.outcome = 'lease_expired'
           LIMIT ${WORKER_RECLAIM_CAP}) x) c ON true
     WHERE w.last_seen_at >= ${since}
     ORDER BY (w.stopped_at IS NULL) DESC, w.last_seen_at DESC, w.id
     LIMIT 500`,
  );
  const ids = workers.map((w) => w.id);
  // Two partial indexes, one for each side of the claim's predicate (a claim writes no entry into the paused one).
  const held =
    ids.length === 0
      ? []
      : await execute<{ id: string; type: string; state: JobState; attempt: number; heartbeatAt: Date | null; leaseOwner: string }>(
          db,
          sql`
    SELECT id, type, state, attempt, heartbeat_at, lease_owner FROM (
      SELECT id, type, state, attempt, heartbeat_at, lease_owner FROM jobs_live
       WHERE state IN ('claimed', 'running', 'cancelling') AND lease_owner = ANY(${sql.param(ids)}::text[])
      UNION ALL
      SELECT id, type, state, attempt, heartbeat_at, lease_owner FROM jobs_live
       WHERE state = 'paused' AND lease_owner = ANY(${sql.param(ids)}::text[])) h
     ORDER BY heartbeat_at DESC NULLS LAST LIMIT 5000`,
        );
  const byOwner = new Map<string, WorkerRow["current"]>();
  for (const { leaseOwner, ...j } of held) {
    const list = byOwner.get(leaseOwner) ?? [];
    list.push(j);
    byOwner.set(leaseOwner, list);
  }
  return workers.map((w) => ({
    ...w,
    reclaimedCapped: w.reclaimed >= WORKER_RECLAIM_CAP,
    attempts: w.finished + w.failed + w.reclaimed,
    status: workerStatus(w.lastSeenAt, w.stoppedAt, now, w.drainRequestedAt),
    heartbeatAgeMs: Math.max(0, now.getTime() - w.lastSeenAt.getTime()),
    current: byOwner.get(w.id) ?? [],
  }));
}
