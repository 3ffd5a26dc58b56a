import "server-only";
import type { Db } from "../db/client";
import { TERMINAL_STATES, type JobState } from "../fsm/table";
import { jobSnapshots } from "../jobs/read-model";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * Finished jobs deleted from the console, under retention's rules (lib/retention/retention.ts): only
 * a job that is finished — no live row, its last transition a terminal one — goes, with its whole
 * history (its catalog row, its attempts, its job_log rows), and a job another transaction holds is
 * left alone. The delete runs in `jobscope_delete_finished` (drizzle/0026) as the owner, since
 * history is append-only for the runtime roles; the caller must be staff.
 */

/** Jobs deleted per statement: one transaction, one audit entry, each. */
export const DELETE_BATCH = 500;

export type DeletePreview = {
  /** The finished jobs that would go, as the dry run found them. */
  ids: string[];
  /** Their run records and their transitions (the job_events view): what goes with them. */
  runs: number;
  events: number;
  /** Jobs of the selection that stay, by why. */
  willSkip: { reason: string; count: number }[];
};

/** The dry run: which of `ids` are finished (and would go, with how much history), and why the others stay. */
export async function previewDelete(db: Db, ids: readonly string[]): Promise<DeletePreview> {
  const jobs = await jobSnapshots(db, [...new Set(ids)]);
  const finished = jobs.filter((j) => (TERMINAL_STATES as readonly JobState[]).includes(j.state)).map((j) => j.id);
  const skip = new Map<string, number>();
  const missing = new Set(ids).size - jobs.length;
  if (missing > 0) skip.set("no such job", missing);
  for (const j of jobs) if (!finished.includes(j.id)) skip.set(`not finished (${j.state})`, (skip.get(`not finished (${j.state})`) ?? 0) + 1);
  const [counts] = finished.length
    ? await execute<{ runs: number; events: number }>(
        db,
        sql`
        SELECT (SELECT count(*)::int FROM job_attempts a WHERE a.job_id = ANY(${sql.param(finished)}::uuid[])) AS runs,
               (SELECT count(*)::int FROM job_events e WHERE e.job_id = ANY(${sql.param(finished)}::uuid[])) AS events`,
      )
    : [{ runs: 0, events: 0 }];
  return {
    ids: finished,
    runs: counts?.runs ?? 0,
    events: counts?.events ?? 0,
    willSkip: [...skip].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
  };
}

/**
 * Delete those of `ids` (one batch, at most DELETE_BATCH) that are still finished, with their
 * history, in the caller's transaction (a staff scope). What went: the job ids, their runs and events.
 */
export async function deleteFinishedBatch(tx: Db, ids: readonly string[]): Promise<{ deleted: string[]; runs: number; events: number }> {
  if (ids.length > DELETE_BATCH) throw new Error(`at most ${DELETE_BATCH} jobs per batch, not ${ids.length}`);
  const [r] = await execute<{ deleted: string[]; runs: number; events: number }>(
    tx,
    sql`
    SELECT deleted, runs, events FROM jobscope_delete_finished(${sql.param(ids as string[])}::uuid[], NULL)`,
  );
  return r ?? { deleted: [], runs: 0, events: 0 };
}
