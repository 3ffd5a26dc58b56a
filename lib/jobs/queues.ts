import type { Db, Sql } from "../db/client";
import { SLOT_STATES } from "../fsm/table";
import type { Actor } from "./types";

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
export async function changeQueue(sql: Sql | Db, queue: string, change: QueueChange, actor: Actor): Promise<QueueSettings> {
  if (!QUEUE_NAME.test(queue)) throw new Error(`not a queue name: ${JSON.stringify(queue.slice(0, 100))}`);
  if (change.kind === "limit" && change.limit !== null && (!Number.isInteger(change.limit) || change.limit < 1 || change.limit > 100_000)) {
    throw new Error("a concurrency limit is a whole number from 1 to 100,000");
  }
  const run = async (tx: Db) => {
    await tx`INSERT INTO queues (name) VALUES (${queue}) ON CONFLICT (name) DO NOTHING`;
    await tx`SELECT 1 FROM queues WHERE name = ${queue} FOR UPDATE`;
    const who = `${actor.kind}:${actor.id}`;
    let event: string;
    let value: number | null = null;
    if (change.kind === "pause" || change.kind === "resume") {
      event = change.kind;
      await tx`UPDATE queues SET paused = ${change.kind === "pause"}, updated_at = now(), updated_by = ${who} WHERE name = ${queue}`;
    } else if (change.kind === "fair") {
      event = change.fair ? "fair" : "unfair";
      await tx`UPDATE queues SET fair = ${change.fair}, updated_at = now(), updated_by = ${who} WHERE name = ${queue}`;
    } else {
      event = change.limit === null ? "unlimit" : "limit";
      value = change.limit;
      await tx`
        UPDATE queues SET concurrency_limit = ${change.limit}, updated_at = now(), updated_by = ${who},
               leased = (SELECT count(*)::int FROM jobs_live WHERE queue = ${queue} AND state IN ${tx(SLOT_STATES)})
         WHERE name = ${queue}`;
    }
    await tx`INSERT INTO queue_events (queue, event, value, actor_kind, actor_id) VALUES (${queue}, ${event}, ${value}, ${actor.kind}, ${actor.id})`;
    const [row] = await tx<QueueSettings[]>`
      SELECT name, paused, concurrency_limit, fair, updated_at, updated_by FROM queues WHERE name = ${queue}`;
    return row!;
  };
  return "savepoint" in sql
    ? (sql as Db & { savepoint: <T>(f: (tx: Db) => Promise<T>) => Promise<T> }).savepoint(run)
    : ((sql as Sql).begin(run) as Promise<QueueSettings>);
}

/**
 * Re-count the slots taken (SLOT_STATES) of every capped queue, under each queue row's lock (the supervisor's
 * tick): a cap's count cannot drift for longer than a tick, whatever happened (a claim already in
 * flight when the cap was set, a crash between two statements of an old worker).
 */
export async function reconcileQueueCounts(sql: Sql): Promise<number> {
  return (await sql.begin(async (tx) => {
    // Lock first, count in the next statement: its snapshot is taken after the lock, so it sees
    // every claim that committed before it, and no claim of these queues commits meanwhile.
    const capped = await tx<{ name: string }[]>`SELECT name FROM queues WHERE concurrency_limit IS NOT NULL ORDER BY name FOR UPDATE`;
    if (capped.length === 0) return 0;
    const fixed = await tx`
      UPDATE queues q SET leased = a.n
        FROM (SELECT c.name, (SELECT count(*)::int FROM jobs_live l WHERE l.queue = c.name AND l.state IN ${tx(SLOT_STATES)}) AS n
                FROM unnest(${capped.map((c) => c.name)}::text[]) AS c(name)) a
       WHERE q.name = a.name AND q.leased <> a.n`;
    return fixed.count;
  })) as number;
}

/** Every queue that has jobs or settings, with its settings (defaults when it has no row). */
export async function queueSettings(sql: Db, names: readonly string[]): Promise<Map<string, QueueSettings>> {
  const rows = await sql<QueueSettings[]>`
    SELECT name, paused, concurrency_limit, fair, updated_at, updated_by FROM queues WHERE name = ANY(${names as string[]})`;
  const out = new Map(rows.map((r) => [r.name, r]));
  for (const n of names)
    if (!out.has(n)) out.set(n, { name: n, paused: false, concurrencyLimit: null, fair: false, updatedAt: null, updatedBy: null });
  return out;
}
