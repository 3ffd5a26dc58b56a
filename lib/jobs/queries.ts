import type { Db } from "../db/client";
import { STATES, type JobState, type RejectionKind, type RunOutcome } from "../fsm/table";
import { decodeCursor, encodeCursor, type JobFilters } from "./filters";
import { POISON_LOSSES } from "../insight/windows";
import type { JobRow, MovedBy } from "./types";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The WHERE clause of a filter (state excluded: tabs count every state under the same filter). */
function where(sql: Db, f: Omit<Partial<JobFilters>, "state">) {
  const parts = [sql`TRUE`];
  if (f.tenant) parts.push(sql`j.tenant_id = ${f.tenant}`);
  if (f.type) parts.push(sql`j.type = ${f.type}`);
  if (f.queue) parts.push(sql`j.queue = ${f.queue}`);
  if (f.createdFrom) parts.push(sql`j.created_at >= ${f.createdFrom}`);
  if (f.createdTo) parts.push(sql`j.created_at < ${f.createdTo}`);
  if (f.finishedFrom) parts.push(sql`j.finished_at >= ${f.finishedFrom}`);
  if (f.finishedTo) parts.push(sql`j.finished_at < ${f.finishedTo}`);
  if (f.errorClass) parts.push(sql`EXISTS (SELECT 1 FROM job_runs r WHERE r.job_id = j.id AND r.error_class = ${f.errorClass})`);
  if (f.worker) parts.push(sql`EXISTS (SELECT 1 FROM job_runs r WHERE r.job_id = j.id AND r.worker_id = ${f.worker})`);
  // Poison suspects: served by job_runs_lease_lost_job_idx (lease losses only, a small partial index).
  if (f.poison) {
    // An array, not IN (subquery): the planner then fetches the few suspects by id instead of walking every job newest first.
    parts.push(sql`j.id = ANY(ARRAY(SELECT job_id FROM job_runs WHERE outcome = 'lease_expired' GROUP BY job_id HAVING count(*) >= ${POISON_LOSSES}))`);
  }
  if (f.q) {
    parts.push(UUID.test(f.q) ? sql`(j.id = ${f.q} OR j.idempotency_key = ${f.q})` : sql`j.idempotency_key = ${f.q}`);
  }
  return parts.reduce((acc, p) => sql`${acc} AND ${p}`);
}

export type JobListRow = Pick<
  JobRow,
  "id" | "tenantId" | "type" | "queue" | "priority" | "state" | "attempt" | "maxAttempts" | "stateVersion" | "createdAt" | "updatedAt" | "finishedAt"
> & { lastErrorClass: string | null; lastWorker: string | null; /** Attempts that ended lease_expired: POISON_LOSSES or more is a poison suspect. */ leaseLosses: number };

export type JobPage = { jobs: JobListRow[]; next: string | null; prev: string | null };

/**
 * One page of jobs, newest first by created or finished time, with keyset
 * cursors (never OFFSET): `after` pages towards older jobs, `before` back.
 */
export async function listJobs(sql: Db, f: JobFilters): Promise<JobPage> {
  const col = f.sort === "finished" ? sql`j.finished_at` : sql`j.created_at`;
  const after = decodeCursor(f.after);
  const before = after ? null : decodeCursor(f.before);
  const keyset = after
    ? sql`AND (${col}, j.id) < (${after.exact}::text::timestamptz, ${after.id}::uuid)`
    : before
      ? sql`AND (${col}, j.id) > (${before.exact}::text::timestamptz, ${before.id}::uuid)`
      : sql``;
  // NULLS LAST / FIRST as in the indexes (drizzle's DESC NULLS LAST): a mismatch makes the planner sort the table.
  const dir = before ? sql`ASC NULLS FIRST` : sql`DESC NULLS LAST`;
  const rows = await sql<(JobListRow & { cursorAt: string })[]>`
    SELECT j.id, j.tenant_id, j.type, j.queue, j.priority, j.state, j.attempt, j.max_attempts, j.state_version,
           j.created_at, j.updated_at, j.finished_at,
           r.error_class AS last_error_class, r.worker_id AS last_worker,
           (SELECT count(*)::int FROM job_runs WHERE job_id = j.id AND outcome = 'lease_expired') AS lease_losses,
           to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
      FROM jobs j
      LEFT JOIN LATERAL (
        SELECT error_class, worker_id FROM job_runs WHERE job_id = j.id ORDER BY attempt DESC LIMIT 1
      ) r ON true
     WHERE ${where(sql, f)} ${f.state ? sql`AND j.state = ${f.state}` : sql``}
       ${f.sort === "finished" ? sql`AND j.finished_at IS NOT NULL` : sql``} ${keyset}
     ORDER BY ${col} ${dir}, j.id ${dir}
     LIMIT ${f.limit + 1}`;
  const more = rows.length > f.limit;
  const page = rows.slice(0, f.limit);
  if (before) page.reverse();
  // The cursor keeps the sort time to the microsecond (see encodeCursor).
  const cursor = (r: (typeof rows)[number] | undefined) => (r ? encodeCursor({ at: r.cursorAt, id: r.id }) : null);

  const next = before || more ? cursor(page.at(-1)) : null;
  const prev = after || (before && more) ? cursor(page[0]) : null;
  for (const r of page) delete (r as Partial<typeof r>).cursorAt;
  return { jobs: page, next, prev };
}

/** Up to this many jobs in a state are counted exactly; above it the count says "1,000+". */
export const COUNT_CAP = 1_000;

/** `capped`: at least `n` jobs, probably more (counting stopped there). */
export type StateCount = { n: number; capped: boolean };
export type StateCounts = Record<JobState, StateCount>;

/** Filters that an index led by state, or by (tenant, state), serves together with the state. */
const servedWithState = (f: Omit<Partial<JobFilters>, "state">) =>
  !(f.type || f.queue || f.errorClass || f.worker || f.poison || f.q || f.createdFrom || f.createdTo || f.finishedFrom || f.finishedTo);

/**
 * Jobs per state under a filter, for the tabs; no read grows with the table.
 * - No filter, or a tenant: per state, an index scan (state, … / tenant, state) that
 *   stops at COUNT_CAP + 1 rows: exact below, "1,000+" above.
 * - Any other filter: its own index finds the matching jobs; at most COUNT_CAP + 1 of
 *   them are read and grouped by state: exact when fewer match, else lower bounds.
 *   (Per state with such a filter, a rare state would scan every job of the filter.)
 * No planner estimates: under row-level security PostgreSQL does not use column
 * statistics for enum equality, so an estimate is the table's average per state.
 */
export async function countByState(
  sql: Db,
  f: Omit<Partial<JobFilters>, "state"> = {},
  cap = COUNT_CAP,
): Promise<StateCounts> {
  const perState = servedWithState(f);
  const rows = perState
    ? await sql<{ state: JobState; n: number }[]>`
        SELECT s.state, (SELECT count(*)::int FROM (
                  SELECT 1 FROM jobs j WHERE j.state = s.state AND ${where(sql, f)} LIMIT ${cap + 1}) x) AS n
          FROM unnest(${STATES as unknown as string[]}::job_state[]) AS s(state)`
    : await sql<{ state: JobState; n: number }[]>`
        SELECT state, count(*)::int AS n FROM (SELECT j.state FROM jobs j WHERE ${where(sql, f)} LIMIT ${cap + 1}) x GROUP BY state`;
  const byState = new Map(rows.map((r) => [r.state, r.n]));
  const sampled = !perState && rows.reduce((sum, r) => sum + r.n, 0) > cap;
  return Object.fromEntries(
    STATES.map((s) => {
      const n = byState.get(s) ?? 0;
      return [s, sampled ? { n, capped: true } : n > cap ? { n: cap, capped: true } : { n, capped: false }];
    }),
  ) as StateCounts;
}

export type RunRecord = {
  attempt: number;
  workerId: string;
  claimedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  outcome: RunOutcome | null;
  errorClass: string | null;
  errorMessage: string | null;
  result: unknown;
};

export type EventRecord = MovedBy & {
  /** bigint: postgres.js returns it as a string. */
  id: string;
  fromState: JobState | null;
  toState: JobState;
  attempt: number;
  stateVersion: number;
  payload: Record<string, unknown> | null;
};

export type RejectionRecord = {
  /** bigint: postgres.js returns it as a string. */
  id: string;
  event: string;
  kind: RejectionKind;
  actorKind: string;
  actorId: string;
  expectedState: JobState | null;
  expectedVersion: number | null;
  currentState: JobState | null;
  currentVersion: number | null;
  reason: string;
  at: Date;
};

export type JobDetail = {
  job: JobRow;
  runs: RunRecord[];
  events: EventRecord[];
  /** Shown events are the newest EVENT_LIMIT; this is how many there are. */
  eventCount: number;
  rejections: RejectionRecord[];
};

export const EVENT_LIMIT = 500;

/** Everything the job page shows, or null when there is no such job. */
export async function getJobDetail(sql: Db, id: string): Promise<JobDetail | null> {
  if (!UUID.test(id)) return null;
  const [job] = await sql<JobRow[]>`SELECT * FROM jobs WHERE id = ${id}`;
  if (!job) return null;
  const [runs, events, [count], rejections] = await Promise.all([
    sql<RunRecord[]>`
      SELECT attempt, worker_id, claimed_at, started_at, finished_at, outcome, error_class, error_message, result
        FROM job_runs WHERE job_id = ${id} ORDER BY attempt`,
    sql<EventRecord[]>`
      SELECT * FROM (
        SELECT id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload
          FROM job_events WHERE job_id = ${id} ORDER BY state_version DESC LIMIT ${EVENT_LIMIT}) e
       ORDER BY state_version`,
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${id}`,
    sql<RejectionRecord[]>`
      SELECT id, event, kind, actor_kind, actor_id, expected_state, expected_version, current_state, current_version, reason, at
        FROM transition_rejections WHERE job_id = ${id} ORDER BY id DESC LIMIT 50`,
  ]);
  return { job, runs, events, eventCount: count?.n ?? events.length, rejections };
}
