import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";

/** The states in which a handler runs and may report progress (the job page and the list show it then). */
export const PROGRESS_STATES: readonly JobState[] = ["running", "paused", "cancelling"];

/**
 * The reported progress (`ctx.progress()`, written by the worker's heartbeat) of those of `jobs` whose
 * handler may be running, by job id: one primary-key read of their live rows, and only while the
 * value belongs to the attempt now running (a new attempt's claim leaves the last one's in place).
 */
export async function liveProgress(sql: Db, jobs: readonly { id: string; state: JobState }[]): Promise<Map<string, { done: number; total: number }>> {
  const ids = jobs.filter((j) => PROGRESS_STATES.includes(j.state)).map((j) => j.id);
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; done: number; total: number }[]>`
    SELECT id, progress_done AS done, progress_total AS total
      FROM jobs_live WHERE id = ANY(${ids}::uuid[]) AND progress_attempt = attempt`;
  return new Map(rows.map((r) => [r.id, { done: r.done, total: r.total }]));
}
