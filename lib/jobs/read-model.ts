import type { SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { actorsInto, type JobSnapshot } from "../fsm/machine";
import { STATES, TERMINAL_STATES, type JobState } from "../fsm/table";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * The console's reads of a job's state from the storage of drizzle/0012 (docs/decisions.md, "The
 * narrow hot path"), as SQL pieces the list, the counts and the job page share. A job is its
 * catalog row, plus its live row while it is unfinished; a finished job's state is its last
 * transition: the closing event of its last attempt a worker ended, or its newest job_log row,
 * whichever has the higher version.
 */

export type Fragment = SQL;

/**
 * A count (LIMIT, a budget, a threshold) as an SQL literal. A statement whose only parameters were
 * its limits was planned afresh on every run: with LIMIT $1 the generic plan is costed for 10% of
 * the rows and never wins, so the counts' statement (tens of partitions) paid 15–27 ms of planning
 * per request; without parameters it is planned once per connection.
 */
export function num(n: number): Fragment {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a count: ${n}`);
  return sql.raw(String(n));
}

/** A state as an SQL literal, for the planner: a partial index's predicate is proved from constants only. */
export function stateLit(s: JobState): Fragment {
  if (!(STATES as readonly string[]).includes(s)) throw new Error(`not a job state: ${s}`);
  return sql.raw(`'${s}'::job_state`);
}

export const TERMINAL: readonly JobState[] = TERMINAL_STATES;

/**
 * The live rows of `state`, on alias `l`: claimed and running rows are in no console index (a
 * claim would pay for its entry); they are few, and found through jobs_live_lease_idx, which
 * `lease_owner IS NOT NULL` (always true in those states) lets the planner read whole.
 */
export function liveState(state: JobState): Fragment {
  const lease = state === "claimed" || state === "running" ? sql`AND l.lease_owner IS NOT NULL` : sql``;
  return sql`l.state = ${stateLit(state)} ${lease}`;
}

/**
 * A transition's time is its transaction's start (now()), so one that began before the job was
 * submitted can be recorded a moment before the job's created_at. Lookups of a job's history
 * prune job_log's day partitions to those after created_at less this much.
 */
const HISTORY_SLACK = "1 hour";
const SLACK = `interval '${HISTORY_SLACK}'`;

/**
 * A job's job_log rows, on alias `r`, from its partitions `since` on (a time the history cannot be
 * older than) to now. The supervisor creates day partitions a week ahead: without the upper bound a
 * lookup probed each of them too (9 of 10 probes when the job is recent). No transaction this
 * statement can see began after it did, but one that began after its start and committed before
 * its snapshot: the bound keeps the slack.
 */
export function logRange(r: string, since: Fragment): Fragment {
  return sql`${sql.raw(`${r}.at`)} >= ${since} - ${sql.raw(SLACK)} AND ${sql.raw(`${r}.at`)} <= statement_timestamp() + ${sql.raw(SLACK)}`;
}

/**
 * The finished state of job `p.id` (created `c.created_at`), on LATERAL joins named `w` and `g`,
 * read only when the job has no live row `l`: `w` is its last attempt that a worker closed, `g` its
 * newest job_log row. A worker's `succeeded` or `cancelled` is terminal for good (only `dead` is
 * replayed), so job_log is not read for those (most finished jobs); otherwise the higher version wins.
 * Columns: fin_state, fin_attempt, fin_max_attempts, fin_version, fin_at (null for a live job).
 */
export function finishedJoins(): Fragment {
  return sql`
    LEFT JOIN LATERAL (
      SELECT a.end_to, a.attempt, a.max_attempts, a.end_version, a.finished_at FROM job_attempts a
       WHERE l.id IS NULL AND a.job_id = p.id AND a.end_version IS NOT NULL ORDER BY a.attempt DESC LIMIT 1) w ON true
    LEFT JOIN LATERAL (
      SELECT e.to_state, e.attempt, e.max_attempts, e.state_version, e.at FROM job_log e
       WHERE l.id IS NULL AND (w.end_to IS NULL OR w.end_to NOT IN ('succeeded', 'cancelled'))
         AND e.job_id = p.id AND ${logRange("e", sql`c.created_at`)}
       ORDER BY e.state_version DESC LIMIT 1) g ON true
    CROSS JOIN LATERAL (
      SELECT CASE WHEN g.state_version > coalesce(w.end_version, -1) THEN g.to_state ELSE w.end_to END AS fin_state,
             CASE WHEN g.state_version > coalesce(w.end_version, -1) THEN g.attempt ELSE w.attempt END AS fin_attempt,
             CASE WHEN g.state_version > coalesce(w.end_version, -1) THEN g.max_attempts ELSE w.max_attempts END AS fin_max_attempts,
             CASE WHEN g.state_version > coalesce(w.end_version, -1) THEN g.state_version ELSE w.end_version END AS fin_version,
             CASE WHEN g.state_version > coalesce(w.end_version, -1) THEN g.at ELSE w.finished_at END AS fin_at) f`;
}

/**
 * `superseded` for a finishing transition `x` (job `x.id`, version `x.v`, time `x.at`): a later
 * transition exists, which for a finish can only be an operator's replay of a dead job (job_log).
 */
export function supersededBy(): Fragment {
  return sql`EXISTS (SELECT 1 FROM job_log r WHERE r.job_id = x.id AND r.state_version > x.v AND ${logRange("r", sql`x.at`)})`;
}

/**
 * Where the transitions into each finished state are stored, from lib/fsm/table.ts: a worker's on
 * its attempt, anyone else's in job_log (only a worker finishes a job as succeeded, so the
 * succeeded tab reads no job_log partition).
 */
const storedIn = (state: JobState) => {
  const into = actorsInto(state);
  return { attempts: into.includes("worker"), log: into.some((a) => a !== "worker") };
};

export type FinishWalk = {
  tenant?: string;
  /** Conditions on the time column `t` and the job id column `i`, written for both tables. */
  bounds?: (t: Fragment, i: Fragment) => Fragment;
  /** Newest first, or oldest first (paging back). */
  ascending?: boolean;
  limit: number;
};

/**
 * The newest `limit` transitions that finished a job in `state` (rows id, at, state), from both
 * tables: job_attempts_final_idx (a worker's finish) and job_log_final_idx (anyone else's), or
 * their tenant variants. A dead finish that a replay superseded is left out: it is not the job's
 * state. Each table is walked in its own subquery with its own ORDER BY and LIMIT, where that
 * check is made row by row: as branches of a UNION ALL with WHERE clauses they would be planned
 * apart from the outer ORDER BY, and sorted whole. The caller merges the two (and the other
 * states') rows and keeps the first `limit`; ordered by (state, at, id), as the branches are, one
 * state's two branches are merged as they are read (a Merge Append), not sorted whole.
 */
export function finishesOf(state: JobState, w: FinishWalk): Fragment {
  const s = stateLit(state);
  const bounds = w.bounds ?? (() => sql``);
  const dir = w.ascending ? sql`ASC` : sql`DESC`;
  // The state leads the ORDER BY as it leads the index: under row-level security (even the staff
  // role's constant policy) an enum equality makes no equivalence class, so the planner does not
  // know the state is constant and would sort every finish of the state to honour (at, id).
  const stateDir = w.ascending ? sql`DESC` : sql`ASC`;
  const superseded = state === "dead" ? sql`AND NOT ${supersededBy()}` : sql``;
  const leaf = (from: Fragment) => sql`
    (SELECT x.id, x.at, x.s AS state FROM (${from}) x
      WHERE TRUE ${superseded}
      ORDER BY x.s ${stateDir}, x.at ${dir}, x.id ${dir} LIMIT ${num(w.limit)})`;
  const stored = storedIn(state);
  const leaves = [
    ...(stored.attempts
      ? [
          leaf(sql`SELECT a.job_id AS id, a.finished_at AS at, a.end_version AS v, a.end_to AS s FROM job_attempts a
                   WHERE a.end_to = ${s} ${w.tenant === undefined ? sql`` : sql`AND a.tenant_id = ${w.tenant}`} ${bounds(sql`a.finished_at`, sql`a.job_id`)}`),
        ]
      : []),
    ...(stored.log
      ? [
          leaf(sql`SELECT e.job_id AS id, e.at, e.state_version AS v, e.to_state AS s FROM job_log e
                   WHERE e.to_state = ${s} ${w.tenant === undefined ? sql`` : sql`AND e.tenant_id = ${w.tenant}`} ${bounds(sql`e.at`, sql`e.job_id`)}`),
        ]
      : []),
  ];
  return leaves.reduce((acc, q) => sql`${acc} UNION ALL ${q}`);
}

const byIds = (ids: readonly string[]) => sql`
      FROM (SELECT DISTINCT unnest(${sql.param(ids as string[])}::uuid[]) AS id) p
      JOIN job_catalog c ON c.id = p.id
      LEFT JOIN jobs_live l ON l.id = p.id
      ${finishedJoins()}
     WHERE l.id IS NOT NULL OR f.fin_state IS NOT NULL`;

/** The `jobs` view's row for each of `ids` that exists (any order), read from the storage with the pruning above. */
export async function jobRows(db: Db, ids: readonly string[]): Promise<JobRow[]> {
  if (ids.length === 0) return [];
  return execute<JobRow>(
    db,
    sql`
    SELECT p.id, c.tenant_id, c.type, c.queue, c.priority, coalesce(l.state, f.fin_state) AS state,
           coalesce(l.attempt, f.fin_attempt) AS attempt, coalesce(l.max_attempts, f.fin_max_attempts) AS max_attempts,
           coalesce(l.state_version, f.fin_version) AS state_version, l.lease_owner, l.heartbeat_at,
           coalesce(l.not_before, c.not_before) AS not_before, c.params, c.idempotency_key, c.created_at,
           coalesce(l.updated_at, f.fin_at) AS updated_at, f.fin_at AS finished_at
      ${byIds(ids)}`,
  );
}

/** The state machine's part of each of `ids` that exists (what a bulk action checks against the table). */
export async function jobSnapshots(db: Db, ids: readonly string[]): Promise<(JobSnapshot & { id: string })[]> {
  if (ids.length === 0) return [];
  return execute<JobSnapshot & { id: string }>(
    db,
    sql`
    SELECT p.id, coalesce(l.state, f.fin_state) AS state, coalesce(l.attempt, f.fin_attempt) AS attempt,
           coalesce(l.max_attempts, f.fin_max_attempts) AS max_attempts, coalesce(l.state_version, f.fin_version) AS state_version
      ${byIds(ids)}`,
  );
}
