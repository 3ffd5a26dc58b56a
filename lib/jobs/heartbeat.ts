import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";
import type { HeartbeatResult } from "./types";

/**
 * One worker's heartbeat for all its jobs, in one statement. It touches only `heartbeat_at` —
 * never state or version, so it invalidates no version a console page or the supervisor holds,
 * and no index covers the column, so with the page's free space (fillfactor) it is a HOT update
 * with no index writes — and is fenced by attempt and lease owner. It returns each job's current
 * state, which is how a worker learns of `paused` and `cancelling`; a job missing from the
 * result has lost its lease.
 */
export async function heartbeat(
  sql: Db,
  opts: { workerId: string; jobs: readonly { id: string; attempt: number }[] },
): Promise<HeartbeatResult> {
  const result: HeartbeatResult = new Map();
  if (opts.jobs.length === 0) return result;
  // Rows are locked in id order, like the guarded write locks them: the two cannot deadlock.
  const jobs = [...opts.jobs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rows = await sql<{ id: string; state: JobState; stateVersion: number }[]>`
    UPDATE jobs_live j SET heartbeat_at = now()
      FROM unnest(${jobs.map((j) => j.id)}::uuid[], ${jobs.map((j) => j.attempt)}::int[]) AS mine(id, attempt)
     WHERE j.id = ANY(${jobs.map((j) => j.id)}::uuid[]) AND j.id = mine.id AND j.attempt = mine.attempt AND j.lease_owner = ${opts.workerId}
    RETURNING j.id, j.state, j.state_version`;
  for (const r of rows) result.set(r.id, { state: r.state, stateVersion: r.stateVersion });
  return result;
}
