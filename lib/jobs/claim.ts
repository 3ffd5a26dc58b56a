import { findTransition } from "../fsm/machine";
import type { Sql } from "../db/client";
import { clock, inWritePath, JOB_COLUMNS } from "./write-path";
import type { ClaimedJob } from "./types";

const CLAIM = findTransition("queued", "claim");
if (!CLAIM || CLAIM.run !== "open") throw new Error("the transition table has no queued → claim that opens a run");

export type ClaimOptions = {
  workerId: string;
  queues: readonly string[];
  limit: number;
  /** Claim only these jobs (the demo seeder and tests); otherwise the next due jobs in claim order. */
  onlyJobIds?: readonly string[];
  at?: Date;
};

/**
 * Claim up to `limit` due jobs in one statement: lock them with SKIP LOCKED,
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
  return inWritePath(sql, async (tx) => {
    const now = clock(tx, opts.at);
    const only = opts.onlyJobIds ? tx`AND id = ANY(${opts.onlyJobIds}::uuid[])` : tx``;
    return tx<ClaimedJob[]>`
      WITH picked AS (
        SELECT p.id FROM unnest(${opts.queues}::text[]) AS q(name), LATERAL (
          SELECT id, priority, not_before FROM jobs
           WHERE state = ${from} AND queue = q.name AND not_before <= ${now}
             AND attempt < max_attempts ${only}
           ORDER BY priority, not_before, id
           LIMIT ${opts.limit}
           FOR UPDATE SKIP LOCKED
        ) p
        ORDER BY p.priority, p.not_before, p.id
        LIMIT ${opts.limit}
      ), claimed AS (
        UPDATE jobs j SET
          state = ${to}, attempt = j.attempt + 1, state_version = j.state_version + 1,
          lease_owner = ${opts.workerId}, heartbeat_at = ${now}, updated_at = ${now}
        FROM picked WHERE j.id = picked.id AND j.state = ${from}
        RETURNING j.*
      ), runs AS (
        INSERT INTO job_runs (job_id, attempt, tenant_id, worker_id, claimed_at)
        SELECT id, attempt, tenant_id, ${opts.workerId}, ${now} FROM claimed
      ), events AS (
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at)
        SELECT id, tenant_id, 'claim', ${from}, ${to}, 'worker', ${opts.workerId}, attempt, state_version, ${now} FROM claimed
      )
      SELECT ${tx.unsafe(JOB_COLUMNS)} FROM claimed ORDER BY priority, not_before, id`;
  });
}
