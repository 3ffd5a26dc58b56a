import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Sql } from "../db/client";

/** A worker id that says where the worker runs: `host-pid-xxxx`. */
export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;
}

export type WorkerRecord = { id: string; queues: string[]; concurrency: number };

/**
 * Register the worker in `workers` (the console's Workers page). An id that
 * was used before starts over: a restarted worker with a fixed id is live again.
 */
export async function registerWorker(sql: Sql, w: WorkerRecord): Promise<void> {
  await sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, started_at, last_seen_at, stopped_at)
    VALUES (${w.id}, ${hostname()}, ${process.pid}, ${w.queues}, ${w.concurrency}, now(), now(), NULL)
    ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, queues = EXCLUDED.queues,
      concurrency = EXCLUDED.concurrency, started_at = now(), last_seen_at = now(), stopped_at = NULL`;
}

/**
 * Every heartbeat tick. An upsert rather than an update, so a row that was
 * cleaned up while the worker was cut off from the database comes back.
 */
export async function touchWorker(sql: Sql, w: WorkerRecord): Promise<void> {
  await sql`
    INSERT INTO workers (id, host, pid, queues, concurrency)
    VALUES (${w.id}, ${hostname()}, ${process.pid}, ${w.queues}, ${w.concurrency})
    ON CONFLICT (id) DO UPDATE SET last_seen_at = now()`;
}

export async function markWorkerStopped(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE workers SET stopped_at = now(), last_seen_at = now() WHERE id = ${id}`;
}
