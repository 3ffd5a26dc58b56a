import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";
import type { HeartbeatResult } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * One worker's heartbeat for all its jobs, in one statement. It touches only `heartbeat_at` —
 * never state or version, so it invalidates no version a console page or the supervisor holds,
 * and no index covers the column, so with the page's free space (fillfactor) it is a HOT update
 * with no index writes — and is fenced by attempt and lease owner. It returns each job's current
 * state, which is how a worker learns of `paused` and `cancelling`; a job missing from the
 * result has lost its lease.
 *
 * A job's `progress` (its handler's last `ctx.progress()`, when it changed since the last beat) is
 * written by the same update, with the attempt it belongs to: the columns are in no index either, so
 * the update stays HOT, and a beat that carries no progress is the statement it always was.
 */
export async function heartbeat(
  db: Db,
  opts: { workerId: string; jobs: readonly { id: string; attempt: number; progress?: { done: number; total: number } }[] },
): Promise<HeartbeatResult> {
  const result: HeartbeatResult = new Map();
  if (opts.jobs.length === 0) return result;
  // Rows are locked in id order, like the guarded write locks them: the two cannot deadlock.
  const jobs = [...opts.jobs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = jobs.map((j) => j.id);
  const attempts = jobs.map((j) => j.attempt);
  const rows = !jobs.some((j) => j.progress)
    ? await execute<{ id: string; state: JobState; stateVersion: number }>(
        db,
        sql`
    UPDATE jobs_live j SET heartbeat_at = now()
      FROM unnest(${sql.param(ids)}::uuid[], ${sql.param(attempts)}::int[]) AS mine(id, attempt)
     WHERE j.id = ANY(${sql.param(ids)}::uuid[]) AND j.id = mine.id AND j.attempt = mine.attempt AND j.lease_owner = ${opts.workerId}
    RETURNING j.id, j.state, j.state_version`,
      )
    : await execute<{ id: string; state: JobState; stateVersion: number }>(
        db,
        sql`
    UPDATE jobs_live j SET heartbeat_at = now(),
           progress_attempt = CASE WHEN mine.done IS NULL THEN j.progress_attempt ELSE mine.attempt END,
           progress_done = coalesce(mine.done, j.progress_done),
           progress_total = CASE WHEN mine.done IS NULL THEN j.progress_total ELSE mine.total END
      FROM unnest(${sql.param(ids)}::uuid[], ${sql.param(attempts)}::int[],
                  ${sql.param(jobs.map((j) => j.progress?.done ?? null))}::float8[], ${sql.param(jobs.map((j) => j.progress?.total ?? null))}::float8[]) AS mine(id, attempt, done, total)
     WHERE j.id = ANY(${sql.param(ids)}::uuid[]) AND j.id = mine.id AND j.attempt = mine.attempt AND j.lease_owner = ${opts.workerId}
    RETURNING j.id, j.state, j.state_version`,
      );
  for (const r of rows) result.set(r.id, { state: r.state, stateVersion: r.stateVersion });
  return result;
}
