import type { Db } from "../db/client";
import { decodeCursor, encodeCursor } from "./filters";

/**
 * Dead jobs, grouped the way an operator triages an outage: by job type and
 * by the error class of the run that killed the job (its last run). A job
 * that failed twice with a timeout and then died of OOM belongs to the OOM
 * group, which is why these queries do not use `listJobs`'s `errorClass`
 * filter (that one matches a class on ANY run).
 */

/** Scope shared by the groups and a group's jobs, so a group's count and its list agree. */
export type DeadScope = { tenant?: string; since?: Date };

export type DeadGroup = {
  type: string;
  /** The last run's error class; null when that run recorded none (shown as "(no error)"). */
  errorClass: string | null;
  count: number;
  firstSeen: Date;
  /** The newest `finished_at` in the group. */
  lastSeen: Date;
  /** The newest job's last error message, cut to SAMPLE_CHARS. */
  sampleMessage: string | null;
  queues: string[];
};

export type DeadJob = {
  id: string;
  tenantId: string;
  type: string;
  queue: string;
  attempt: number;
  maxAttempts: number;
  stateVersion: number;
  finishedAt: Date;
  errorClass: string | null;
  errorMessage: string | null;
};

export type DeadJobPage = { jobs: DeadJob[]; next: string | null };

export type DeadGroupKey = { type: string; errorClass: string | null };

const SAMPLE_CHARS = 300;
export const DEAD_PAGE_MAX = 200;

function scope(sql: Db, s: DeadScope) {
  return sql`${s.tenant ? sql`AND j.tenant_id = ${s.tenant}` : sql``}
             ${s.since ? sql`AND j.finished_at >= ${s.since}` : sql``}`;
}

/**
 * The run that killed each job: its highest attempt, found through the
 * primary key (job_id, attempt) one index probe per job.
 */
const lastRun = (sql: Db) => sql`
  LEFT JOIN LATERAL (
    SELECT r.error_class, r.error_message FROM job_runs r
     WHERE r.job_id = j.id ORDER BY r.attempt DESC LIMIT 1
  ) r ON true`;

/**
 * Groups are counted over at most this many dead jobs, the most recently dead:
 * the page polls them, and an outage can kill far more jobs than a poll should
 * touch. A capped answer says so; narrowing the time range makes it exact.
 */
export const DEAD_GROUP_SCAN_CAP = 10_000;

export type DeadGroups = {
  groups: DeadGroup[];
  /** More dead jobs matched than DEAD_GROUP_SCAN_CAP: the groups cover the newest ones only. */
  capped: boolean;
};

/** Dead jobs by (type, last run's error class), the most recently seen group first. */
export async function listDeadGroups(sql: Db, s: DeadScope & { cap?: number } = {}): Promise<DeadGroups> {
  const cap = s.cap ?? DEAD_GROUP_SCAN_CAP;
  const rows = await sql<(DeadGroup & { capped: boolean })[]>`
    WITH recent AS (
      SELECT j.id, j.type, j.queue, j.finished_at FROM jobs j
       WHERE j.state = 'dead' ${scope(sql, s)}
       ORDER BY j.finished_at DESC, j.id DESC
       LIMIT ${cap + 1}
    )
    SELECT j.type, r.error_class, count(*)::int AS count,
           min(j.finished_at) AS first_seen, max(j.finished_at) AS last_seen,
           (array_agg(left(r.error_message, ${SAMPLE_CHARS}) ORDER BY j.finished_at DESC, j.id DESC))[1] AS sample_message,
           array_agg(DISTINCT j.queue ORDER BY j.queue) AS queues,
           (SELECT count(*) > ${cap} FROM recent) AS capped
      FROM (SELECT * FROM recent ORDER BY finished_at DESC, id DESC LIMIT ${cap}) j ${lastRun(sql)}
     GROUP BY j.type, r.error_class
     ORDER BY last_seen DESC, j.type, r.error_class NULLS FIRST`;
  const groups = rows.map(({ type, errorClass, count, firstSeen, lastSeen, sampleMessage, queues }) => ({
    type, errorClass, count, firstSeen, lastSeen, sampleMessage, queues,
  }));
  return { groups, capped: rows[0]?.capped ?? false };
}

function groupWhere(sql: Db, g: DeadGroupKey & DeadScope) {
  // IS NOT DISTINCT FROM: the "(no error)" group is the NULL class.
  return sql`j.state = 'dead' AND j.type = ${g.type}
             AND r.error_class IS NOT DISTINCT FROM ${g.errorClass}::text ${scope(sql, g)}`;
}

/** One page of a group's jobs, newest death first; keyset on (finished_at, id), never OFFSET. */
export async function listDeadJobs(
  sql: Db,
  p: DeadGroupKey & DeadScope & { cursor?: string | null; limit?: number },
): Promise<DeadJobPage> {
  const limit = Math.min(Math.max(Math.trunc(p.limit ?? 50), 1), DEAD_PAGE_MAX);
  const after = decodeCursor(p.cursor ?? undefined);
  const rows = await sql<DeadJob[]>`
    SELECT j.id, j.tenant_id, j.type, j.queue, j.attempt, j.max_attempts, j.state_version, j.finished_at,
           r.error_class, left(r.error_message, 2000) AS error_message
      FROM jobs j ${lastRun(sql)}
     WHERE ${groupWhere(sql, p)}
       ${after ? sql`AND (j.finished_at, j.id) < (${after.at}, ${after.id}::uuid)` : sql``}
     ORDER BY j.finished_at DESC, j.id DESC
     LIMIT ${limit + 1}`;
  const jobs = rows.slice(0, limit);
  const last = jobs.at(-1);
  return { jobs, next: rows.length > limit && last ? encodeCursor({ at: last.finishedAt, id: last.id }) : null };
}

/**
 * Every id in a group, newest first, up to `cap` (and whether there were more):
 * the selection a "Replay group" freezes. One statement, so the ids are one
 * consistent snapshot.
 */
export async function listDeadGroupIds(
  sql: Db,
  g: DeadGroupKey & DeadScope & { cap: number },
): Promise<{ ids: string[]; capped: boolean }> {
  const rows = await sql<{ id: string }[]>`
    SELECT j.id FROM jobs j ${lastRun(sql)}
     WHERE ${groupWhere(sql, g)}
     ORDER BY j.finished_at DESC, j.id DESC
     LIMIT ${g.cap + 1}`;
  return { ids: rows.slice(0, g.cap).map((r) => r.id), capped: rows.length > g.cap };
}
