import "server-only";
import type { Db } from "../db/client";
import { POISON_SUSPECT_CRASHES } from "../insight/windows";
import { POISON_ERROR_CLASS, WORKER_LOST_CLASS } from "./poison";
import { isJobType, JOB_TYPES, maySubmit } from "./job-types";
import { logRange } from "./read-model";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";
import { inputIssues, type InputIssue } from "../result";

export { describeDiff, paramsDiff, type ParamsChange } from "./params-diff";

/**
 * What a replay's dry run says beyond "will replay n": the jobs it would hand out again that are
 * likely to die the same way, and how many attempts a replay gives. A replay extends a job's budget
 * by at most one (docs/decisions.md): a job that used every attempt gets exactly one more; one that
 * died with attempts left — a permanent error, or an operator's abandon — keeps them.
 */
export type ReplayRisks = {
  /**
   * Stopped as a poison job (the supervisor's PoisonJob), or a suspect: blamed for POISON_SUSPECT_CRASHES
   * or more worker crashes (lib/jobs/poison.ts; the list's poison badge). Its handler presumably kills the process.
   */
  poison: number;
  /** Died of a permanent error (its handler said retrying cannot help) with attempts left. */
  permanent: number;
  /** Jobs that get exactly one more attempt. */
  oneMore: number;
  /** Jobs that keep attempts they had left, and the most any of them keeps. */
  keepLeft: { jobs: number; most: number };
};

/**
 * The risks of replaying `ids` (dead jobs the dry run froze): each job's last attempt, one probe of
 * job_attempts_pkey per job. A job whose last attempt a worker closed as `failed` while attempts
 * remained was abandoned on a permanent error (the worker retries anything else).
 */
export async function replayRisks(db: Db, ids: readonly string[]): Promise<ReplayRisks> {
  if (ids.length === 0) return { poison: 0, permanent: 0, oneMore: 0, keepLeft: { jobs: 0, most: 0 } };
  const [r] = await execute<{ poison: number; permanent: number; oneMore: number; keepJobs: number; keepMost: number }>(
    db,
    sql`
    SELECT count(*) FILTER (WHERE a.error_class = ${POISON_ERROR_CLASS} OR lost.n >= ${POISON_SUSPECT_CRASHES})::int AS poison,
           count(*) FILTER (WHERE a.error_class IS DISTINCT FROM ${POISON_ERROR_CLASS} AND a.end_event = 'abandon' AND a.outcome = 'failed' AND a.attempt < a.max_attempts)::int AS permanent,
           count(*) FILTER (WHERE a.attempt IS NULL OR a.attempt >= a.max_attempts)::int AS one_more,
           count(*) FILTER (WHERE a.attempt < a.max_attempts)::int AS keep_jobs,
           coalesce(max(a.max_attempts - a.attempt) FILTER (WHERE a.attempt < a.max_attempts), 0)::int AS keep_most
      FROM unnest(${sql.param(ids as string[])}::uuid[]) AS j(id)
      LEFT JOIN LATERAL (
        SELECT x.error_class, x.outcome, x.end_event, x.attempt, x.max_attempts FROM job_attempts x WHERE x.job_id = j.id ORDER BY x.attempt DESC LIMIT 1) a ON true
      LEFT JOIN LATERAL (SELECT count(*) AS n FROM job_attempts y WHERE y.job_id = j.id AND y.outcome = 'lease_expired' AND y.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}) lost ON true`,
  );
  return { poison: r!.poison, permanent: r!.permanent, oneMore: r!.oneMore, keepLeft: { jobs: r!.keepJobs, most: r!.keepMost } };
}

/**
 * The params a job runs with now: what was submitted (job_catalog), or what its latest replay with
 * edited params carried (that replay's job_log row). Null when there is no such job.
 */
export async function currentParams(db: Db, jobId: string): Promise<{ type: string; params: unknown; editedAt: number | null } | null> {
  const [row] = await execute<{ type: string; params: unknown; editedVersion: number | null }>(
    db,
    sql`
    SELECT c.type, coalesce(e.params, c.params) AS params, e.state_version AS edited_version
      FROM job_catalog c
      LEFT JOIN LATERAL (
        SELECT e.payload -> 'params' AS params, e.state_version FROM job_log e
         WHERE e.job_id = c.id AND e.event = 'replay' AND e.payload ? 'params' AND ${logRange("e", sql`c.created_at`)}
         ORDER BY e.state_version DESC LIMIT 1) e ON true
     WHERE c.id = ${jobId}::uuid`,
  );
  return row ? { type: row.type, params: row.params, editedAt: row.editedVersion } : null;
}

/**
 * Edited params checked as a new submission of `type` would be (its schema in lib/jobs/job-types.ts):
 * the params as the schema gives them back (defaults filled), or every issue by field. Jobscope's own
 * types are submitted only by Jobscope: their params are not the console's to edit.
 */
export function checkReplayParams(type: string, raw: unknown): { ok: true; params: unknown } | { ok: false; issues: InputIssue[] } {
  if (!isJobType(type))
    return { ok: false, issues: [{ path: "", message: `${type} is not a job type this console knows, so its params cannot be checked` }] };
  if (!maySubmit(type, "console"))
    return { ok: false, issues: [{ path: "", message: `${type} jobs are submitted only by Jobscope itself: replay them as they are` }] };
  const parsed = JOB_TYPES[type].params.safeParse(raw);
  if (parsed.success) return { ok: true, params: parsed.data };
  return { ok: false, issues: inputIssues(parsed.error) };
}
