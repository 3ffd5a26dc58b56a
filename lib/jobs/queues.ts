import type { Db } from "../db/client";
import { SLOT_STATES } from "../fsm/table";
import type { Actor } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * A queue's settings. A queue exists as soon as a job names it; its `queues` row holds
 * what an operator set: paused, a cap on its leased jobs across every worker, fair claiming
 * between tenants. The claim statement reads them (lib/jobs/claim.ts); a change is recorded in
 * `queue_events` with who made it.
 */
export type QueueSettings = {
  name: string;
  paused: boolean;
  concurrencyLimit: number | null;
  fair: boolean;
  updatedAt: Date | null;
  updatedBy: string | null;
};

export type QueueChange = { kind: "pause" } | { kind: "resume" } | { kind: "limit"; limit: number | null } | { kind: "fair"; fair: boolean };

export const QUEUE_NAME = /^[a-z0-9_.-]{1,100}$/;

/**
 * Apply one change to a queue's settings, in one transaction with its queue_events row. Setting a
 * cap re-counts the queue's slots taken (jobs claimed, running or cancelling: SLOT_STATES) under the queue row's lock, so the claim's count starts
 * from the truth. Returns the settings after the change.
 */
export async function changeQueue(db: Db | Db, queue: string, change: QueueChange, actor: Actor): Promise<QueueSettings> {
  if (!QUEUE_NAME.test(queue)) throw new Error(`not a queue name: ${JSON.stringify(queue.slice(0, 100))}`);
  if (change.kind === "limit" && change.limit !== null && (!Number.isInteger(change.limit) || change.limit < 1 || change.limit > 100_000)) {
    throw new Error("a concurrency limit is a whole number from 1 to 100,000");
  }
  const run = async (tx: Db) => {
    await execute(tx, sql`INSERT INTO queues (name) VALUES (${queue}) ON CONFLICT (name) DO NOTHING`);
    await execute(tx, sql`SELECT 1 FROM queues WHERE name = ${queue} FOR UPDATE`);
    const who = `${actor.kind}:${actor.id}`;
    let event: string;
    let value: number | null = null;
    if (change.kind === "pause" || change.kind === "resume") {
      event = change.kind;
      await execute(tx, sql`UPDATE queues SET paused = ${change.kind === "pause"}, updated_at = now(), updated_by = ${who} WHERE name = ${queue}`);
    } else if (change.kind === "fair") {
      event = change.fair ? "fair" : "unfair";
      await execute(tx, sql`UPDATE queues SET fair = ${change.fair}, updated_at = now(), updated_by = ${who} WHERE name = ${queue}`);
    } else {
      event = change.limit === null ? "unlimit" : "limit";
      value = change.limit;
      await execute(
        tx,
        sql`
        UPDATE queues SET concurrency_limit = ${change.limit}, updated_at = now(), updated_by = ${who},
               leased = (SELECT count(*)::int FROM jobs_live WHERE queue = ${queue} AND state = ANY(${sql.param(SLOT_STATES)}::job_state[]))
         WHERE name = ${queue}`,
      );
    }
    await execute(
      tx,
      sql`INSERT INTO queue_events (queue, event, value, actor_kind, actor_id) VALUES (${queue}, ${event}, ${value}, ${actor.kind}, ${actor.id})`,
    );
    const [row] = await execute<QueueSettings>(
      tx,
      sql`
      SELECT name, paused, concurrency_limit, fair, updated_at, updated_by FROM queues WHERE name = ${queue}`,
    );
    return row!;
  };
  // Its own transaction, or a savepoint inside the caller's.
  return db.transaction(run);
}

/**
 * Re-count the slots taken (SLOT_STATES) of every capped queue, under each queue row's lock (the supervisor's
 * tick): a cap's count cannot drift for longer than a tick, whatever happened (a claim already in
 * flight when the cap was set, a crash between two statements of an old worker).
 */
export async function reconcileQueueCounts(db: Db): Promise<number> {
  return (await db.transaction(async (tx) => {
    // Lock first, count in the next statement: its snapshot is taken after the lock, so it sees
    // every claim that committed before it, and no claim of these queues commits meanwhile.
    const capped = await execute<{ name: string }>(tx, sql`SELECT name FROM queues WHERE concurrency_limit IS NOT NULL ORDER BY name FOR UPDATE`);
    if (capped.length === 0) return 0;
    const fixed = await execute(
      tx,
      sql`
      UPDATE queues q SET leased = a.n
        FROM (SELECT c.name, (SELECT count(*)::int FROM jobs_live l WHERE l.queue = c.name AND l.state = ANY(${sql.param(SLOT_STATES)}::job_state[])) AS n
                FROM unnest(${sql.param(capped.map((c) => c.name))}::text[]) AS c(name)) a
       WHERE q.name = a.name AND q.leased <> a.n`,
    );
    return fixed.count;
  })) as number;
}

/** Every queue that has jobs or settings, with its settings (defaults when it has no row). */
export async function queueSettings(db: Db, names: readonly string[]): Promise<Map<string, QueueSettings>> {
  const rows = await execute<QueueSettings>(
    db,
    sql`
    SELECT name, paused, concurrency_limit, fair, updated_at, updated_by FROM queues WHERE name = ANY(${sql.param(names as string[])})`,
  );
  const out = new Map(rows.map((r) => [r.name, r]));
  for (const n of names)
    if (!out.has(n)) out.set(n, { name: n, paused: false, concurrencyLimit: null, fair: false, updatedAt: null, updatedBy: null });
  return out;
}
