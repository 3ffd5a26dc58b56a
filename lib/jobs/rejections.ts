import type { JobState } from "../fsm/table";
import type { Db } from "../db/client";
import type { MovedBy, Rejection, TransitionInput } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** The row as the write path re-reads it to decide and to classify a refusal. */
export type Current = {
  state: JobState;
  stateVersion: number;
  attempt: number;
  maxAttempts: number;
  leaseOwner: string | null;
  tenantId: string;
};

export async function readCurrent(tx: Db, jobId: string): Promise<Current | null> {
  const [row] = await execute<Current>(
    tx,
    sql`
    SELECT state, state_version, attempt, max_attempts, lease_owner, tenant_id FROM jobs_live WHERE id = ${jobId}
    UNION ALL
    SELECT f.state, f.state_version, f.attempt, f.max_attempts, NULL, c.tenant_id
      FROM job_catalog c CROSS JOIN LATERAL job_last_transition(c.id, c.created_at) f
     WHERE c.id = ${jobId} AND NOT EXISTS (SELECT 1 FROM jobs_live WHERE id = ${jobId})`,
  );
  return row ?? null;
}

type Miss = { kind: "conflict" | "drift" | "illegal"; reason: string };

/**
 * Why a write that expected `expected` cannot land on `current`, or null if it can:
 * - conflict: the version moved on (someone else transitioned it first), or a
 *   worker's attempt no longer holds the lease;
 * - drift: the version matches but the state does not, which only a write
 *   outside the write path can cause.
 */
export function classifyMiss(input: TransitionInput, expected: { state: JobState; version: number }, current: Current): Miss | null {
  if (current.stateVersion !== expected.version) {
    return { kind: "conflict", reason: `expected ${expected.state} at version ${expected.version}` };
  }
  if (current.state !== expected.state) {
    return {
      kind: "drift",
      reason: `version ${expected.version} matches but the state is ${current.state}, not ${expected.state}: the row was written outside the write path`,
    };
  }
  if (input.actor.kind === "worker") {
    if (input.attempt === undefined) return { kind: "illegal", reason: "a worker must name its attempt" };
    if (current.attempt !== input.attempt || current.leaseOwner !== input.actor.id) {
      return { kind: "conflict", reason: `attempt ${input.attempt} by ${input.actor.id} no longer holds the lease` };
    }
  }
  return null;
}

async function lastMove(tx: Db, jobId: string): Promise<MovedBy | null> {
  const [row] = await execute<MovedBy>(
    tx,
    sql`
    SELECT event, actor_kind, actor_id, at FROM job_events WHERE job_id = ${jobId} ORDER BY state_version DESC LIMIT 1`,
  );
  return row ?? null;
}

/** Record a refusal in `transition_rejections` and describe it to the caller. */
export async function recordRejection(
  tx: Db,
  input: TransitionInput,
  current: Current | null,
  kind: Rejection["kind"],
  reason: string,
): Promise<Rejection> {
  const movedBy = current ? await lastMove(tx, input.jobId) : null;
  let sentence = reason;
  if (kind === "conflict" && current && movedBy) {
    sentence = `${reason}; ${movedBy.actorKind} ${movedBy.actorId} applied ${movedBy.event} at ${movedBy.at.toISOString()}, and the job is now ${current.state} (version ${current.stateVersion})`;
  }
  if (kind === "drift") {
    console.error(`[jobscope] INVARIANT VIOLATION (drift) on job ${input.jobId}: ${reason}`);
  }
  await execute(
    tx,
    sql`
    INSERT INTO transition_rejections
      (job_id, tenant_id, event, kind, actor_kind, actor_id, expected_state, expected_version, current_state, current_version, reason)
    VALUES (${input.jobId}, ${current?.tenantId ?? null}, ${input.event}, ${kind === "not_found" ? "illegal" : kind},
            ${input.actor.kind}, ${input.actor.id}, ${input.expected?.state ?? null}, ${input.expected?.version ?? null},
            ${current?.state ?? null}, ${current?.stateVersion ?? null}, ${sentence.slice(0, 2000)})`,
  );
  return {
    ok: false,
    kind,
    reason: sentence,
    current: current && { state: current.state, stateVersion: current.stateVersion, attempt: current.attempt, movedBy },
  };
}
