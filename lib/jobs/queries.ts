import type { Db } from "../db/client";
import { isUuid } from "../uuid";
import { isTerminal } from "../fsm/machine";
import { STATES, type JobState, type RejectionKind, type RunOutcome } from "../fsm/table";
import { durationMs, encodeCursor, type JobFilters } from "./filters";
import { keysetOf, listSource, SCAN_BUDGET, type Keyset } from "./list-source";
import { finishedJoins, finishesOf, jobRows, liveState, logRange, num, stateLit } from "./read-model";
import { WORKER_LOST_CLASS } from "./poison";
import { PROGRESS_STATES } from "./progress";
import type { JobRow, MovedBy } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

export type JobListRow = Pick<
  JobRow,
  "id" | "tenantId" | "type" | "queue" | "priority" | "state" | "attempt" | "maxAttempts" | "stateVersion" | "createdAt" | "updatedAt" | "finishedAt"
> & {
  lastErrorClass: string | null;
  lastWorker: string | null;
  /** Worker crashes blamed on it (lib/jobs/poison.ts): POISON_SUSPECT_CRASHES or more is a poison suspect. */ crashes: number;
};

export type JobPage = {
  jobs: JobListRow[];
  next: string | null;
  prev: string | null;
  /** Sorted by duration or filtered by it: how many of the filter's newest jobs were ranked, and whether that stopped at SCAN_BUDGET. */
  ranked?: { n: number; capped: boolean };
};

/**
 * One page of jobs with keyset cursors (never OFFSET): `after` pages towards older jobs, `before`
 * back. Each tab reads its own index (lib/jobs/list-source.ts says which, and in what order):
 * the All tab the catalog newest created first, a live state's tab its live rows newest created
 * first, a finished state's tab (and sort=finished) the finishing transitions newest finished
 * first. The `worker` filter means the jobs whose attempts did not succeed on that worker, or that
 * it holds now: job_attempts_worker_trouble_idx and jobs_live.lease_owner (a successful attempt
 * takes no index entry; the workers page counts those). Then the page's rows are completed: the
 * live row or the last transition, and the last attempt's error class and worker.
 */
export async function listJobs(db: Db, f: JobFilters): Promise<JobPage> {
  if (f.sort === "duration" || f.longerThan) return listByDuration(db, f);
  const k = keysetOf(f);
  const source = listSource(f, k, f.limit + 1);
  if (!source) return { jobs: [], next: null, prev: null };
  const d = k.asc ? sql`ASC` : sql`DESC`;
  const rows = await execute<JobListRow & { cursorAt: string; ok: boolean; rn: number }>(
    db,
    sql`
    WITH p AS MATERIALIZED (${source.sql})
    SELECT p.id, c.tenant_id, c.type, c.queue, c.priority, coalesce(l.state, f.fin_state) AS state,
           coalesce(l.attempt, f.fin_attempt) AS attempt, coalesce(l.max_attempts, f.fin_max_attempts) AS max_attempts,
           coalesce(l.state_version, f.fin_version) AS state_version, c.created_at, coalesce(l.updated_at, f.fin_at) AS updated_at,
           f.fin_at AS finished_at,
           CASE WHEN l.lease_owner IS NULL THEN r.last_error_class END AS last_error_class,
           CASE WHEN l.lease_owner IS NULL THEN r.last_worker ELSE l.run_worker END AS last_worker,
           coalesce(r.crashes, 0) AS crashes, p.ok, p.rn,
           to_char(p.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
      FROM p
      JOIN job_catalog c ON c.id = p.id
      LEFT JOIN jobs_live l ON l.id = p.id
      ${finishedJoins()}
      LEFT JOIN LATERAL (
        SELECT (array_agg(a.error_class ORDER BY a.attempt DESC))[1] AS last_error_class,
               (array_agg(a.worker_id ORDER BY a.attempt DESC))[1] AS last_worker,
               count(*) FILTER (WHERE a.outcome = 'lease_expired' AND a.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})::int AS crashes
          FROM job_attempts a WHERE a.job_id = p.id) r ON true
     ORDER BY ${source.order === "id" ? sql`p.id ${d}` : sql`p.at ${d}, p.id ${d}`}`,
  );
  // The cursor keeps the sort time to the microsecond (see encodeCursor).
  const cursor = (r: (typeof rows)[number] | undefined) => (r ? encodeCursor({ at: r.cursorAt, id: r.id }) : null);
  // Where the walk stopped, when it read its whole budget before finding a page (lib/jobs/list-source.ts).
  const stop = cursor(rows.find((r) => r.rn === SCAN_BUDGET));
  const matches = rows.filter((r) => r.ok);
  const more = matches.length > f.limit;
  const page = matches.slice(0, f.limit);
  let next: string | null;
  let prev: string | null;
  if (k.before) {
    page.reverse();
    prev = more ? cursor(page[0]) : stop;
    next = cursor(page.at(-1)) ?? stop ?? beside(k, k.oldest ? -1 : 1);
  } else {
    next = more ? cursor(page.at(-1)) : stop;
    prev = k.after ? (cursor(page[0]) ?? stop ?? beside(k, k.oldest ? 1 : -1)) : null;
  }
  const jobs = page.map((r) => {
    const { cursorAt, ok, rn, ...job } = r;
    void [cursorAt, ok, rn];
    return job;
  });
  return { jobs, next, prev };
}

/**
 * Longest first, or "took longer than": ranked among the filter's newest SCAN_BUDGET jobs (oldest,
 * when the list is oldest first) — the same walk as the list's (lib/jobs/list-source.ts: the
 * catalog's created indexes, the finished indexes, …), every candidate completed with its finish
 * (finishedJoins: job_attempts_pkey, the job_log partitions after its submit). A finished job's
 * duration is finish − submit; "longest first" ranks finished jobs only, so a job still running
 * is not compared with finished ones by a time that is still growing — except on a live state's
 * tab, where every job is live and ranked by its time so far (now − submit), which the console
 * says. "Took longer than" counts a live job's time so far. No index orders jobs by duration (a
 * finish's duration needs its submit, on another table, and the hot row takes no new index): the
 * filter bounds the walk, and `ranked` says when the budget cut it (the console asks for a
 * narrower filter then). Keyset-paged on (duration, id), or on the source's own order with only
 * the threshold.
 */
async function listByDuration(db: Db, f: JobFilters): Promise<JobPage> {
  const byDuration = f.sort === "duration";
  const source = listSource({ ...f, sort: byDuration ? "created" : f.sort }, keysetOf({ sort: f.sort }), SCAN_BUDGET);
  if (!source) return { jobs: [], next: null, prev: null, ranked: { n: 0, capped: false } };
  const k = keysetOf(f);
  const min = f.longerThan ? durationMs(f.longerThan) : null;
  const finishedOnly = byDuration && !(f.state && !isTerminal(f.state));
  const d = k.asc ? sql`ASC` : sql`DESC`;
  const cmp = k.asc ? sql`>` : sql`<`;
  const order = byDuration ? sql`dur_us ${d}, id ${d}` : source.order === "id" ? sql`id ${d}` : sql`at ${d}, id ${d}`;
  let beyond = sql``;
  if (k.at !== null && k.id !== null) {
    beyond = byDuration
      ? sql`AND (dur_us, id) ${cmp} ((extract(epoch FROM ${k.at}::text::timestamptz) * 1000000)::bigint, ${k.id}::uuid)`
      : source.order === "id"
        ? sql`AND id ${cmp} ${k.id}::uuid`
        : sql`AND (at, id) ${cmp} (${k.at}::text::timestamptz, ${k.id}::uuid)`;
  }
  const rows = await execute<(JobListRow & { cursorAt: string; durUs: string }) & { n: number; capped: boolean }>(
    db,
    sql`
    WITH p AS MATERIALIZED (${source.sql}),
    d AS (
      SELECT p.id, p.at, c.tenant_id, c.type, c.queue, c.priority, coalesce(l.state, f.fin_state) AS state,
             coalesce(l.attempt, f.fin_attempt) AS attempt, coalesce(l.max_attempts, f.fin_max_attempts) AS max_attempts,
             coalesce(l.state_version, f.fin_version) AS state_version, c.created_at, coalesce(l.updated_at, f.fin_at) AS updated_at,
             f.fin_at AS finished_at, l.lease_owner, l.run_worker,
             (extract(epoch FROM coalesce(f.fin_at, statement_timestamp()) - c.created_at) * 1000000)::bigint AS dur_us
        FROM p
        JOIN job_catalog c ON c.id = p.id
        LEFT JOIN jobs_live l ON l.id = p.id
        ${finishedJoins()}
       WHERE p.ok ${finishedOnly ? sql`AND f.fin_at IS NOT NULL` : sql``}),
    pg AS (
      SELECT * FROM d WHERE TRUE ${min !== null ? sql`AND dur_us > ${num(min * 1000)}` : sql``} ${beyond}
       ORDER BY ${order} LIMIT ${num(f.limit + 1)}),
    -- How many were ranked, and whether the walk stopped at its budget: one row even when no job is on the page.
    stats AS (
      SELECT (SELECT count(*)::int FROM d) AS n,
             (SELECT coalesce(bool_or(rn = ${num(SCAN_BUDGET)}) OR count(*) FILTER (WHERE ok) >= ${num(SCAN_BUDGET)}, false) FROM p) AS capped)
    SELECT pg.id, pg.tenant_id, pg.type, pg.queue, pg.priority, pg.state, pg.attempt, pg.max_attempts, pg.state_version,
           pg.created_at, pg.updated_at, pg.finished_at,
           CASE WHEN pg.lease_owner IS NULL THEN r.last_error_class END AS last_error_class,
           CASE WHEN pg.lease_owner IS NULL THEN r.last_worker ELSE pg.run_worker END AS last_worker,
           coalesce(r.crashes, 0) AS crashes, pg.dur_us, stats.n, stats.capped,
           CASE WHEN ${byDuration} THEN to_char((timestamptz 'epoch' + pg.dur_us * interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                ELSE to_char(pg.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END AS cursor_at
      FROM stats LEFT JOIN pg ON true
      LEFT JOIN LATERAL (
        SELECT (array_agg(a.error_class ORDER BY a.attempt DESC))[1] AS last_error_class,
               (array_agg(a.worker_id ORDER BY a.attempt DESC))[1] AS last_worker,
               count(*) FILTER (WHERE a.outcome = 'lease_expired' AND a.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})::int AS crashes
          FROM job_attempts a WHERE a.job_id = pg.id) r ON true
     ORDER BY ${order}`,
  );
  const stats = rows[0];
  // The one row of an empty page carries only the stats.
  const found = rows.filter((r) => r.id !== null);
  const cursor = (r: (typeof rows)[number] | undefined) => (r ? encodeCursor({ at: r.cursorAt, id: r.id }) : null);
  const more = found.length > f.limit;
  const page = found.slice(0, f.limit);
  if (k.before) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  const next = k.before ? cursor(last) : more ? cursor(last) : null;
  const prev = k.before ? (more ? cursor(first) : null) : k.after ? cursor(first) : null;
  const jobs = page.map((r) => {
    const { cursorAt, durUs, n, capped, ...job } = r;
    void [cursorAt, durUs, n, capped];
    return job;
  });
  return { jobs, next, prev, ranked: { n: stats?.n ?? 0, capped: stats?.capped ?? false } };
}

/**
 * A cursor just beside the one a page came from, so that paging back from an empty page shows the
 * job the cursor named again: the id one above (`+1`) or below (`-1`) it, at the same time. A page
 * is empty when the walk of the page before read its whole budget and nothing matched after it.
 */
function beside(k: Keyset, delta: 1 | -1): string | null {
  if (k.at === null || k.id === null) return null;
  const n = BigInt(`0x${k.id.replace(/-/g, "")}`) + BigInt(delta);
  if (n < 0n || n >= 1n << 128n) return null;
  const h = n.toString(16).padStart(32, "0");
  return encodeCursor({ at: k.at, id: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` });
}

/** Up to this many jobs in a state are counted exactly; above it the count says "1,000+". */
export const COUNT_CAP = 1_000;

/** `capped`: at least `n` jobs, probably more (counting stopped there). */
export type StateCount = { n: number; capped: boolean };
export type StateCounts = Record<JobState, StateCount>;

/** Filters that an index led by state, or by (tenant, state), serves together with the state. */
const servedWithState = (f: Omit<Partial<JobFilters>, "state">) =>
  !(
    f.type ||
    f.queue ||
    f.errorClass ||
    f.worker ||
    f.poison ||
    f.q ||
    f.params ||
    f.operation ||
    f.createdFrom ||
    f.createdTo ||
    f.finishedFrom ||
    f.finishedTo
  );

/**
 * Jobs per state under a filter, for the tabs; no read grows with the table.
 * - No filter, or a tenant: per state, an index scan that stops at COUNT_CAP + 1 rows: exact
 *   below, "1,000+" above. A live state reads jobs_live_waiting_idx (or its tenant variant;
 *   claimed and running the lease index); a finished state its finishing transitions
 *   (job_attempts_final_idx + job_log_final_idx, or their tenant variants), newest first for
 *   dead, whose finishes an operator replayed since are not counted (a job replayed and dead
 *   again counts once).
 * - Any other filter: the All tab's own source (lib/jobs/list-source.ts) reads at most
 *   COUNT_CAP + 1 matching jobs, newest first, and groups them by state: exact when fewer match,
 *   else lower bounds; lower bounds too when its walk read its SCAN_BUDGET rows before (a rare
 *   combination of filters). (Per state with such a filter, a rare state would walk every job of
 *   the filter.)
 * No planner estimates: under row-level security PostgreSQL does not use column statistics for
 * enum equality, so an estimate is the table's average per state.
 */
export async function countByState(db: Db, f: Omit<Partial<JobFilters>, "state"> = {}, cap = COUNT_CAP): Promise<StateCounts> {
  const perState = servedWithState(f);
  const { rows, partial } = perState ? { rows: await countPerState(db, f.tenant, cap), partial: false } : await countSample(db, f, cap);
  const byState = new Map(rows.map((r) => [r.state, r.n]));
  const sampled = !perState && (partial || rows.reduce((sum, r) => sum + r.n, 0) > cap);
  return Object.fromEntries(
    STATES.map((s) => {
      const n = byState.get(s) ?? 0;
      return [s, sampled ? { n, capped: true } : n > cap ? { n: cap, capped: true } : { n, capped: false }];
    }),
  ) as StateCounts;
}

function countPerState(db: Db, tenant: string | undefined, cap: number) {
  const counts = STATES.map((s) => {
    const lit = stateLit(s);
    if (!isTerminal(s)) {
      return sql`SELECT ${lit} AS state, (SELECT count(*)::int FROM (
                   SELECT 1 FROM jobs_live l WHERE ${liveState(s)} ${tenant === undefined ? sql`` : sql`AND l.tenant_id = ${tenant}`}
                    LIMIT ${num(cap + 1)}) x) AS n`;
    }
    // Newest first: a dead finish is checked for a later replay in the fewest day partitions.
    const finishes = finishesOf(s, { tenant, limit: cap + 1 });
    return sql`SELECT ${lit} AS state, (SELECT count(*)::int FROM (SELECT 1 FROM (${finishes}) x LIMIT ${num(cap + 1)}) y) AS n`;
  });
  return execute<{ state: JobState; n: number }>(db, sql`${counts.reduce((acc, q) => sql`${acc} UNION ALL ${q}`)}`);
}

async function countSample(
  db: Db,
  f: Omit<Partial<JobFilters>, "state">,
  cap: number,
): Promise<{ rows: { state: JobState; n: number }[]; partial: boolean }> {
  // The sort does not narrow a count; a finished range does (only finished jobs match it).
  const source = listSource({ ...f, state: undefined, sort: "created" }, keysetOf({}), cap + 1);
  if (!source) return { rows: [], partial: false };
  const rows = await execute<{ state: JobState | null; n: number; partial: boolean }>(
    db,
    sql`
    WITH p AS MATERIALIZED (${source.sql})
    SELECT CASE WHEN p.ok THEN coalesce(l.state, f.fin_state) END AS state, count(*)::int AS n, bool_or(p.rn = ${num(SCAN_BUDGET)}) AS partial
      FROM p JOIN job_catalog c ON c.id = p.id LEFT JOIN jobs_live l ON l.id = p.id ${finishedJoins()}
     GROUP BY 1`,
  );
  return {
    rows: rows.flatMap((r) => (r.state === null ? [] : [{ state: r.state, n: r.n }])),
    partial: rows.some((r) => r.partial),
  };
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
  /** The handler's stack: read for staff only (`getJobDetail(…, { stacks: true })`), absent otherwise. */
  errorStack?: string | null;
  result: unknown;
};

/** The running attempt's last `ctx.progress()` (lib/worker/context.ts): `done` of `total`. */
export type JobProgress = { attempt: number; done: number; total: number };

export type EventRecord = MovedBy & {
  /** The event's state_version, as text: a job's events are keyed by their version. */
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
  /** While the job is live: its current attempt's reported progress, or null. */
  progress: JobProgress | null;
};

export const EVENT_LIMIT = 500;

/**
 * Everything the job page shows, or null when there is no such job. The job is its catalog row
 * with its live row or last transition (lib/jobs/read-model.ts); its runs are its ended attempts
 * and the open one on its live row; its events the `job_events` view's rows for this one job (the
 * view reads each storage table by job id), its job_log day partitions from its creation on.
 * `stacks`: each failed attempt's stack too — for staff; a tenant's reads never ask for them.
 */
export async function getJobDetail(db: Db, id: string, opts: { stacks?: boolean } = {}): Promise<JobDetail | null> {
  if (!isUuid(id)) return null;
  const [job] = await jobRows(db, [id]);
  if (!job) return null;
  const range = logRange("job_events", sql`${job.createdAt}::timestamptz`);
  const [runs, events, [count], rejections, [progress]] = await Promise.all([
    execute<RunRecord>(
      db,
      sql`
      SELECT attempt, worker_id, claimed_at, started_at, finished_at, outcome, error_class, error_message, result${opts.stacks ? sql`, error_stack` : sql``}
        FROM job_attempts WHERE job_id = ${id}
      UNION ALL
      SELECT attempt, run_worker, run_claimed_at, run_started_at, NULL, NULL, NULL, NULL, NULL${opts.stacks ? sql`, NULL` : sql``}
        FROM jobs_live WHERE id = ${id} AND lease_owner IS NOT NULL
       ORDER BY attempt`,
    ),
    execute<EventRecord>(
      db,
      sql`
      SELECT * FROM (
        SELECT state_version::text AS id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload
          FROM job_events WHERE job_id = ${id} AND ${range} ORDER BY state_version DESC LIMIT ${num(EVENT_LIMIT)}) e
       ORDER BY state_version`,
    ),
    execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${id} AND ${range}`),
    execute<RejectionRecord>(
      db,
      sql`
      SELECT id, event, kind, actor_kind, actor_id, expected_state, expected_version, current_state, current_version, reason, at
        FROM transition_rejections WHERE job_id = ${id} ORDER BY id DESC LIMIT 50`,
    ),
    execute<JobProgress>(
      db,
      sql`
      SELECT progress_attempt AS attempt, progress_done AS done, progress_total AS total
        FROM jobs_live WHERE id = ${id} AND progress_attempt = attempt`,
    ),
  ]);
  return { job, runs, events, eventCount: count?.n ?? events.length, rejections, progress: progress ?? null };
}

/**
 * The reported progress (`ctx.progress()`, written by the worker's heartbeat) of those of `jobs` whose
 * handler may be running, by job id: one primary-key read of their live rows, and only while the
 * value belongs to the attempt now running (a new attempt's claim leaves the last one's in place).
 */
export async function liveProgress(db: Db, jobs: readonly { id: string; state: JobState }[]): Promise<Map<string, { done: number; total: number }>> {
  const ids = jobs.filter((j) => PROGRESS_STATES.includes(j.state)).map((j) => j.id);
  if (ids.length === 0) return new Map();
  const rows = await execute<{ id: string; done: number; total: number }>(
    db,
    sql`
    SELECT id, progress_done AS done, progress_total AS total
      FROM jobs_live WHERE id = ANY(${sql.param(ids)}::uuid[]) AND progress_attempt = attempt`,
  );
  return new Map(rows.map((r) => [r.id, { done: r.done, total: r.total }]));
}
