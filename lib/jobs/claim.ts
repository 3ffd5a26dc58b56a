import { findTransition } from "../fsm/machine";
import type { Sql } from "../db/client";
import { clock, JOB_COLUMNS, writePathMark } from "./write-path";
import type { ClaimedJob } from "./types";

const CLAIM = findTransition("queued", "claim");
if (!CLAIM || CLAIM.run !== "open") throw new Error("the transition table has no queued → claim that opens a run");
const START = findTransition(CLAIM.to, "start");
if (!START || START.run !== "start" || !START.actors.includes("worker")) throw new Error(`the transition table has no ${CLAIM.to} → start by a worker`);

export type ClaimOptions = {
  workerId: string;
  queues: readonly string[];
  limit: number;
  /**
   * Also apply `start` to the first `startNow` claimed jobs (in claim order),
   * in the same statement: one UPDATE of the row instead of two, the run
   * record opened already started, and both events (claim, then start)
   * appended. The worker asks for this for the jobs it can launch at once;
   * prefetched jobs stay `claimed` until they get a slot.
   */
  startNow?: number;
  /** Claim only these jobs (the demo seeder and tests); otherwise the next due jobs in claim order. */
  onlyJobIds?: readonly string[];
  at?: Date;
};

/**
 * Claim up to `limit` due jobs in one autocommit statement: lock them with SKIP LOCKED,
 * move them queued → claimed while incrementing the attempt in the same
 * UPDATE, open each attempt's run record and append the claim events.
 *
 * The locking SELECT sits in its own CTE so the LIMIT bounds the rows the
 * UPDATE touches (without it the planner may update more rows than asked).
 * It reads the claim index one queue at a time (`queue = q`, then priority
 * order straight from the index): with `queue = ANY(...)` the index cannot
 * give the order, and PostgreSQL sorted every queued job on each claim.
 */
export async function claim(sql: Sql, opts: ClaimOptions): Promise<ClaimedJob[]> {
  if (opts.limit < 1 || opts.queues.length === 0) return [];
  const from = CLAIM!.from;
  const to = CLAIM!.to;
  const running = START!.to;
  const startNow = Math.max(0, Math.min(opts.limit, Math.floor(opts.startNow ?? 0)));
  // One autocommit statement (the write-path mark travels inside it): one round trip on the pickup path.
  const now = clock(sql, opts.at);
  const only = opts.onlyJobIds ? sql`AND id = ANY(${opts.onlyJobIds}::uuid[])` : sql``;
  return sql<ClaimedJob[]>`
      WITH mark AS MATERIALIZED (${writePathMark(sql)}), picked AS (
        SELECT p.id, p.priority, p.not_before FROM mark, unnest(${opts.queues}::text[]) AS q(name), LATERAL (
          SELECT id, priority, not_before FROM jobs
           WHERE state = ${from} AND queue = q.name AND not_before <= ${now}
             AND attempt < max_attempts ${only}
           ORDER BY priority, not_before, id
           LIMIT ${opts.limit}
           FOR UPDATE SKIP LOCKED
        ) p
        WHERE mark.marked = 'on'
        ORDER BY p.priority, p.not_before, p.id
        LIMIT ${opts.limit}
      ), ranked AS (
        SELECT id, row_number() OVER (ORDER BY priority, not_before, id) <= ${startNow} AS starts FROM picked
      ), claimed AS (
        UPDATE jobs j SET
          state = CASE WHEN r.starts THEN ${running}::job_state ELSE ${to}::job_state END,
          attempt = j.attempt + 1,
          state_version = j.state_version + CASE WHEN r.starts THEN 2 ELSE 1 END,
          lease_owner = ${opts.workerId}, heartbeat_at = ${now}, updated_at = ${now}
        FROM ranked r WHERE j.id = r.id AND j.state = ${from}
        RETURNING j.*, r.starts
      ), runs AS (
        INSERT INTO job_runs (job_id, attempt, tenant_id, worker_id, claimed_at, started_at)
        SELECT id, attempt, tenant_id, ${opts.workerId}, ${now}, CASE WHEN starts THEN ${now} END FROM claimed
      ), events AS (
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at)
        SELECT id, tenant_id, 'claim'::job_event, ${from}::job_state, ${to}::job_state, 'worker'::actor_kind, ${opts.workerId}, attempt,
               state_version - CASE WHEN starts THEN 1 ELSE 0 END, ${now} FROM claimed
        UNION ALL
        SELECT id, tenant_id, 'start'::job_event, ${to}::job_state, ${running}::job_state, 'worker'::actor_kind, ${opts.workerId}, attempt, state_version, ${now}
          FROM claimed WHERE starts
      )
      SELECT ${sql.unsafe(JOB_COLUMNS)} FROM claimed ORDER BY priority, not_before, id`;
}
