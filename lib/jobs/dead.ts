import "server-only";
import type { Db } from "../db/client";
import { decodeCursor, encodeCursor } from "./filters";
import { budgeted, SCAN_BUDGET } from "./list-source";
import { finishedJoins, finishesOf, num, type Fragment } from "./read-model";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

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

/**
 * The newest dead finishes in scope, newest first (lib/jobs/read-model.ts, finishesOf: a replayed
 * job's dead finish is not counted), at most `limit`, `cursor` excluded.
 */
function deadFinishes(s: DeadScope, limit: number, cursor?: { exact: string; id: string } | null): Fragment {
  const bounds = (t: Fragment, i: Fragment) =>
    sql`${s.since ? sql`AND ${t} >= ${s.since}` : sql``} ${cursor ? sql`AND (${t}, ${i}) < (${cursor.exact}::text::timestamptz, ${cursor.id}::uuid)` : sql``}`;
  // Ordered by (state, at, id) as the two tables' walks are, so they are merged as they are read (see finishesOf).
  return sql`
    SELECT u.id, u.at, u.state FROM (${finishesOf("dead", { tenant: s.tenant, bounds, limit })}) u
     ORDER BY u.state, u.at DESC, u.id DESC LIMIT ${num(limit)}`;
}

/**
 * The run that killed each job: its highest attempt, found through the
 * primary key (job_id, attempt) one index probe per job.
 */
const lastRun = (id: Fragment) => sql`
  LEFT JOIN LATERAL (
    SELECT r.error_class, r.error_message FROM job_attempts r
     WHERE r.job_id = ${id} ORDER BY r.attempt DESC LIMIT 1
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
export async function listDeadGroups(db: Db, s: DeadScope & { cap?: number } = {}): Promise<DeadGroups> {
  const cap = s.cap ?? DEAD_GROUP_SCAN_CAP;
  const rows = await execute<DeadGroup & { capped: boolean }>(
    db,
    sql`
    WITH recent AS MATERIALIZED (${deadFinishes(s, cap + 1)})
    SELECT c.type, r.error_class, count(*)::int AS count,
           min(j.at) AS first_seen, max(j.at) AS last_seen,
           (array_agg(left(r.error_message, ${SAMPLE_CHARS}) ORDER BY j.at DESC, j.id DESC))[1] AS sample_message,
           array_agg(DISTINCT c.queue ORDER BY c.queue) AS queues,
           (SELECT count(*) > ${num(cap)} FROM recent) AS capped
      FROM (SELECT * FROM recent ORDER BY at DESC, id DESC LIMIT ${num(cap)}) j
      JOIN job_catalog c ON c.id = j.id ${lastRun(sql`j.id`)}
     GROUP BY c.type, r.error_class
     ORDER BY last_seen DESC, c.type, r.error_class NULLS FIRST`,
  );
  const groups = rows.map(({ type, errorClass, count, firstSeen, lastSeen, sampleMessage, queues }) => ({
    type,
    errorClass,
    count,
    firstSeen,
    lastSeen,
    sampleMessage,
    queues,
  }));
  return { groups, capped: rows[0]?.capped ?? false };
}

/** A group's checks on dead finish `w` (IS NOT DISTINCT FROM: the "(no error)" group is the NULL class). */
function inGroup(g: DeadGroupKey): Fragment[] {
  return [
    sql`EXISTS (SELECT 1 FROM job_catalog cg WHERE cg.id = w.id AND cg.type = ${g.type})`,
    sql`(SELECT rg.error_class FROM job_attempts rg WHERE rg.job_id = w.id ORDER BY rg.attempt DESC LIMIT 1) IS NOT DISTINCT FROM ${g.errorClass}::text`,
  ];
}

/**
 * One page of a group's jobs, newest death first; keyset on (finished_at, id), never OFFSET. The
 * walk over the dead jobs reads at most SCAN_BUDGET of them (lib/jobs/list-source.ts): a rare group
 * can give a short page, whose `next` continues from where the walk stopped.
 */
export async function listDeadJobs(db: Db, p: DeadGroupKey & DeadScope & { cursor?: string | null; limit?: number }): Promise<DeadJobPage> {
  const limit = Math.min(Math.max(Math.trunc(p.limit ?? 50), 1), DEAD_PAGE_MAX);
  const after = decodeCursor(p.cursor ?? undefined);
  const source = budgeted(deadFinishes(p, SCAN_BUDGET, after), sql`w.state, w.at DESC, w.id DESC`, inGroup(p), limit + 1);
  const rows = await execute<DeadJob & { ok: boolean; rn: number; cursorAt: string }>(
    db,
    sql`
    WITH p AS MATERIALIZED (${source})
    SELECT p.id, c.tenant_id, c.type, c.queue, f.fin_attempt AS attempt, f.fin_max_attempts AS max_attempts,
           f.fin_version AS state_version, p.at AS finished_at, r.error_class, left(r.error_message, 2000) AS error_message, p.ok, p.rn,
           to_char(p.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
      FROM p JOIN job_catalog c ON c.id = p.id LEFT JOIN jobs_live l ON l.id = p.id ${finishedJoins()} ${lastRun(sql`p.id`)}
     ORDER BY p.at DESC, p.id DESC`,
  );
  const matches = rows.filter((r) => r.ok);
  const jobs = matches.slice(0, limit).map((r) => {
    const { ok, rn, cursorAt, ...job } = r;
    void [ok, rn, cursorAt];
    return job;
  });
  const cursor = (r: (typeof rows)[number] | undefined) => (r ? encodeCursor({ at: r.cursorAt, id: r.id }) : null);
  const next = matches.length > limit ? cursor(matches[limit - 1]) : cursor(rows.find((r) => r.rn === SCAN_BUDGET));
  return { jobs, next };
}

/**
 * Every id in a group, newest first, up to `cap` (and whether there were more):
 * the selection a "Replay group" freezes, found among the newest DEAD_GROUP_SCAN_CAP dead jobs
 * in scope, the ones the groups are counted over (so the group's count and its selection agree).
 * One statement, so the ids are one consistent snapshot.
 */
export async function listDeadGroupIds(db: Db, g: DeadGroupKey & DeadScope & { cap: number }): Promise<{ ids: string[]; capped: boolean }> {
  const rows = await execute<{ id: string; ok: boolean }>(
    db,
    sql`
    SELECT w.id, ${inGroup(g).reduce((acc, x) => sql`${acc} AND ${x}`)} AS ok
      FROM (${deadFinishes(g, Math.max(DEAD_GROUP_SCAN_CAP, g.cap + 1))}) w
     ORDER BY w.at DESC, w.id DESC`,
  );
  const ids = rows.filter((r) => r.ok).map((r) => r.id);
  return { ids: ids.slice(0, g.cap), capped: ids.length > g.cap || rows.length > DEAD_GROUP_SCAN_CAP };
}
