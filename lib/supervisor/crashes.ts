import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { execute } from "../db/drizzle";
import { CRASH_WINDOW_MS, REPEAT_CRASHES, WORKER_LOST_CLASS } from "../jobs/poison";

// What the supervisor reads to blame a dead worker's crash (lib/jobs/poison.ts: the rule itself).

/**
 * Per job: the crashes blamed on it, and the dead workers it has been on that no repeat offender
 * explains (each lost attempt, less those it lost as a bystander of a job blamed for REPEAT_CRASHES
 * or more). The bystander's recovery event names whom its worker's death was blamed on
 * (job_attempts_pkey, job_log_job_version_idx).
 */
export async function crashHistory(db: Db, jobIds: readonly string[]): Promise<Map<string, { deaths: number; crashes: number }>> {
  if (jobIds.length === 0) return new Map();
  const rows = await execute<{ jobId: string; deaths: number; crashes: number }>(
    db,
    sql`
    WITH lost AS (
      SELECT a.job_id, a.error_class,
             CASE WHEN a.error_class = ${WORKER_LOST_CLASS} THEN
               (SELECT (e.payload->'crash'->'blamed'->>'jobId')::uuid FROM job_log e
                 WHERE e.job_id = a.job_id AND e.attempt = a.attempt AND e.actor_kind = 'supervisor' AND e.at >= a.claimed_at
                 ORDER BY e.state_version DESC LIMIT 1) END AS blamed_on
        FROM job_attempts a WHERE a.job_id = ANY(${sql.param(jobIds)}::uuid[]) AND a.outcome = 'lease_expired'),
    offenders AS (
      SELECT b.job_id FROM job_attempts b
       WHERE b.job_id IN (SELECT blamed_on FROM lost WHERE blamed_on IS NOT NULL) AND b.outcome = 'lease_expired'
         AND b.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}
       GROUP BY b.job_id HAVING count(*) >= ${REPEAT_CRASHES})
    SELECT job_id, count(*) FILTER (WHERE blamed_on IS NULL OR blamed_on NOT IN (SELECT job_id FROM offenders))::int AS deaths,
           count(*) FILTER (WHERE error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})::int AS crashes
      FROM lost GROUP BY job_id`,
  );
  return new Map(rows.map((r) => [r.jobId, { deaths: r.deaths, crashes: r.crashes }]));
}

/**
 * The attempts already recovered, in the last CRASH_WINDOW_MS, of jobs that `workers` took down
 * (job_attempts_worker_trouble_idx: worker_id, finished_at DESC).
 */
export async function earlierVictims(
  db: Db,
  workers: readonly string[],
): Promise<{ workerId: string; jobId: string; type: string; startedAt: Date; errorClass: string | null }[]> {
  if (workers.length === 0) return [];
  return execute(
    db,
    sql`
    SELECT a.worker_id, a.job_id, c.type, coalesce(a.started_at, a.claimed_at) AS started_at, a.error_class
      FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id
     WHERE a.worker_id = ANY(${sql.param(workers)}::text[]) AND a.outcome <> 'succeeded' AND a.outcome = 'lease_expired'
       AND a.finished_at >= now() - ${CRASH_WINDOW_MS} * interval '1 millisecond'`,
  );
}
