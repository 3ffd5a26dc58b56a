import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Sql } from "../db/client";

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
export async function registerWorker(sql: Sql, w: WorkerRecord): Promise<void> {
  await sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, started_at, last_seen_at, stopped_at, succeeded, failed)
    VALUES (${w.id}, ${hostname()}, ${process.pid}, ${w.queues}, ${w.concurrency}, now(), now(), NULL, 0, 0)
    ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, queues = EXCLUDED.queues,
      concurrency = EXCLUDED.concurrency, started_at = now(), last_seen_at = now(), stopped_at = NULL, succeeded = 0, failed = 0`;
}

/**
 * Every heartbeat tick. An upsert rather than an update, so a row that was
 * cleaned up while the worker was cut off from the database comes back.
 */
export async function touchWorker(sql: Sql, w: WorkerRecord): Promise<void> {
  await sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, succeeded, failed)
    VALUES (${w.id}, ${hostname()}, ${process.pid}, ${w.queues}, ${w.concurrency}, ${w.succeeded ?? 0}, ${w.failed ?? 0})
    ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), succeeded = EXCLUDED.succeeded, failed = EXCLUDED.failed`;
}

export async function markWorkerStopped(sql: Sql, w: WorkerRecord): Promise<void> {
  await sql`UPDATE workers SET stopped_at = now(), last_seen_at = now(), succeeded = ${w.succeeded ?? 0}, failed = ${w.failed ?? 0} WHERE id = ${w.id}`;
}
