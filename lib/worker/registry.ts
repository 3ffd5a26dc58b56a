import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** A worker id that says where the worker runs: `host-pid-xxxx`. */
export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;
}

export type WorkerRecord = {
  id: string;
  queues: string[];
  concurrency: number;
  /** Attempts this worker finished and failed since it started (it counts them; the workers page shows them). */
  succeeded?: number;
  failed?: number;
};

/**
 * Register the worker in `workers` (the console's Workers page). An id that
 * was used before starts over: a restarted worker with a fixed id is live again.
 */
export async function registerWorker(db: Db, w: WorkerRecord): Promise<void> {
  await execute(
    db,
    sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, started_at, last_seen_at, stopped_at, succeeded, failed)
    VALUES (${w.id}, ${hostname()}, ${process.pid}, ${sql.param(w.queues)}, ${w.concurrency}, now(), now(), NULL, 0, 0)
    ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, queues = EXCLUDED.queues,
      concurrency = EXCLUDED.concurrency, started_at = now(), last_seen_at = now(), stopped_at = NULL, succeeded = 0, failed = 0,
      drain_requested_at = NULL, drain_requested_by = NULL`,
  );
}

/**
 * Every heartbeat tick. An upsert rather than an update, so a row that was
 * cleaned up while the worker was cut off from the database comes back. It
 * answers whether an operator has asked this worker to drain (and who did).
 */
export async function touchWorker(db: Db, w: WorkerRecord): Promise<{ drainRequestedBy: string | null } | null> {
  const [row] = await execute<{ drainRequestedAt: Date | null; drainRequestedBy: string | null }>(
    db,
    sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, succeeded, failed)
    VALUES (${w.id}, ${hostname()}, ${process.pid}, ${sql.param(w.queues)}, ${w.concurrency}, ${w.succeeded ?? 0}, ${w.failed ?? 0})
    ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), succeeded = EXCLUDED.succeeded, failed = EXCLUDED.failed
    RETURNING drain_requested_at, drain_requested_by`,
  );
  return row?.drainRequestedAt ? { drainRequestedBy: row.drainRequestedBy } : null;
}

/**
 * An operator's request that worker `id` drain: it finishes what it holds and stops, as on SIGTERM.
 * The worker reads it with its next heartbeat (within a second). Only a worker that is still running
 * (not stopped, seen within `aliveWithinMs`) can be asked; the first request stands.
 */
export async function requestDrain(
  db: Db,
  id: string,
  by: string,
  aliveWithinMs: number,
): Promise<{ outcome: "requested" | "already"; at: Date } | { outcome: "not_running" } | { outcome: "not_found" }> {
  const [row] = await execute<{ requested: boolean; at: Date | null; running: boolean }>(
    db,
    sql`
    WITH w AS (SELECT id, drain_requested_at, stopped_at IS NULL AND last_seen_at >= now() - ${aliveWithinMs} * interval '1 millisecond' AS running
                 FROM workers WHERE id = ${id} FOR UPDATE),
    upd AS (UPDATE workers SET drain_requested_at = now(), drain_requested_by = ${by}
             FROM w WHERE workers.id = w.id AND w.running AND w.drain_requested_at IS NULL
             RETURNING workers.drain_requested_at)
    SELECT (SELECT count(*) FROM upd) > 0 AS requested, coalesce((SELECT drain_requested_at FROM upd), w.drain_requested_at) AS at, w.running FROM w`,
  );
  if (!row) return { outcome: "not_found" };
  if (row.requested) return { outcome: "requested", at: row.at! };
  if (!row.running) return { outcome: "not_running" };
  return { outcome: "already", at: row.at! };
}

export async function markWorkerStopped(db: Db, w: WorkerRecord): Promise<void> {
  await execute(
    db,
    sql`UPDATE workers SET stopped_at = now(), last_seen_at = now(), succeeded = ${w.succeeded ?? 0}, failed = ${w.failed ?? 0} WHERE id = ${w.id}`,
  );
}
