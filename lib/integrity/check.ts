import type { Db } from "../db/client";
import { isLeased } from "../fsm/machine";
import { rebuild, type LoggedEvent } from "../fsm/rebuild";
import type { RunOutcome } from "../fsm/table";
import type { JobRow } from "../jobs/types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * The integrity check: for every job, rebuild it from its transitions through
 * the state machine (lib/fsm/rebuild.ts) and compare the result with the job's
 * row and its run records.
 * The transitions are the source of truth (DESIGN.md, "One write path"); a
 * mismatch means a write bypassed the write path or the write path has a bug.
 *
 * It reads the read model of drizzle/0012 (docs/decisions.md, "The narrow hot
 * path"): the `job_events` view (the submit from job_catalog, job_log, and the
 * worker's claim, start and closing event read back from its attempt row or the
 * live row), the `jobs` view (the live row, or the last transition of a finished
 * job) and the `job_runs` view (the ended attempts and the open one). So a
 * tampered attempt row, job_log row, catalog row or live row each shows up as a
 * transition that does not fold or a row the rebuild does not reproduce.
 *
 * It is incremental: it checks the jobs with activity in a time window, found
 * where each kind of write lands: a submit by job_catalog.created_at, a
 * transition no worker applied by job_log.at, and an attempt by
 * job_attempts.finished_at. An attempt is written once, when it ends, so a
 * worker's claim and start are checked when their attempt ends (or when the
 * job's next non-worker transition lands), not while the attempt is open.
 */

export type Mismatch = { jobId: string; problem: string };
export type CheckResult = {
  windowFrom: Date;
  windowTo: Date;
  jobsChecked: number;
  eventsRebuilt: number;
  mismatches: Mismatch[];
  durationMs: number;
};

type EventRow = LoggedEvent & { jobId: string; payload: { maxAttempts?: number } | null };
/** What the check compares of a job's row. */
export type CheckedJob = Pick<JobRow, "id" | "state" | "attempt" | "maxAttempts" | "stateVersion" | "leaseOwner" | "finishedAt">;
/** What the check compares of a run record. */
export type CheckedRun = { jobId: string; attempt: number; startedAt: Date | null; finishedAt: Date | null; outcome: RunOutcome | null };

/** Check one job given everything stored about it. Pure: the chaos harness and the tests call it too. */
export function checkJob(job: CheckedJob, events: readonly EventRow[], runs: readonly CheckedRun[]): string[] {
  const rebuilt = rebuild(events, events[0]?.payload?.maxAttempts ?? job.maxAttempts);
  const problems = [...rebuilt.problems];
  if (!rebuilt.complete) return problems;
  const { job: snap, runs: expected } = rebuilt;
  if (snap.state !== job.state || snap.attempt !== job.attempt || snap.stateVersion !== job.stateVersion || snap.maxAttempts !== job.maxAttempts) {
    problems.push(
      `row is ${job.state}/attempt ${job.attempt}/${job.maxAttempts}/v${job.stateVersion}, the log rebuilds to ${snap.state}/attempt ${snap.attempt}/${snap.maxAttempts}/v${snap.stateVersion}`,
    );
  }
  for (const [attempt, want] of expected) {
    if (want.closings > 1) problems.push(`attempt ${attempt} was finalized ${want.closings} times`);
  }
  const byAttempt = new Map(runs.map((r) => [r.attempt, r]));
  for (const r of runs) if (!expected.has(r.attempt)) problems.push(`run record for attempt ${r.attempt} has no claim in the log`);
  for (const [attempt, want] of expected) {
    const run = byAttempt.get(attempt);
    if (!run) {
      problems.push(`attempt ${attempt} was claimed but has no run record`);
      continue;
    }
    if (run.outcome !== want.outcome) problems.push(`run ${attempt}: outcome ${run.outcome ?? "open"}, the log says ${want.outcome ?? "open"}`);
    if ((run.startedAt !== null) !== want.started)
      problems.push(`run ${attempt}: started_at ${run.startedAt ? "set" : "empty"}, the log says ${want.started ? "started" : "not started"}`);
  }
  const openRuns = runs.filter((r) => r.outcome === null).map((r) => r.attempt);
  const shouldBeOpen = isLeased(job.state) ? [job.attempt] : [];
  if (openRuns.join() !== shouldBeOpen.join())
    problems.push(`open runs [${openRuns.join(", ")}], expected [${shouldBeOpen.join(", ")}] for a ${job.state} job`);
  return problems;
}

/** Check the given jobs: three queries per batch (each view by job id), the comparison in memory. */
export async function checkJobs(db: Db, ids: readonly string[]): Promise<{ mismatches: Mismatch[]; events: number; jobs: number }> {
  const mismatches: Mismatch[] = [];
  let events = 0;
  let jobs = 0;
  const BATCH = 500;
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const [rows, evs, runs] = await Promise.all([
      execute<CheckedJob>(
        db,
        sql`SELECT id, state, attempt, max_attempts, state_version, lease_owner, finished_at FROM jobs WHERE id = ANY(${sql.param(batch)}::uuid[])`,
      ),
      execute<EventRow>(
        db,
        sql`
        SELECT job_id, event, from_state, to_state, actor_kind, attempt, state_version, CASE WHEN event = 'submit' THEN payload END AS payload
          FROM job_events WHERE job_id = ANY(${sql.param(batch)}::uuid[]) ORDER BY job_id, state_version`,
      ),
      execute<CheckedRun>(
        db,
        sql`SELECT job_id, attempt, started_at, finished_at, outcome FROM job_runs WHERE job_id = ANY(${sql.param(batch)}::uuid[]) ORDER BY job_id, attempt`,
      ),
    ]);
    const evBy = group(evs);
    const runBy = group(runs);
    const rowBy = group(rows.map((r) => ({ ...r, jobId: r.id })));
    events += evs.length;
    for (const [id, same] of rowBy) {
      jobs++;
      // A live row beside a finished last transition: the `jobs` view shows the job twice.
      if (same.length > 1)
        mismatches.push({ jobId: id, problem: `${same.length} rows: ${same.map((r) => r.state).join(" and ")} (a live row and a finished history)` });
      for (const problem of checkJob(same[0]!, evBy.get(id) ?? [], runBy.get(id) ?? [])) mismatches.push({ jobId: id, problem });
    }
    for (const id of batch)
      if (!rowBy.has(id) && evBy.has(id))
        mismatches.push({
          jobId: id,
          problem: "transitions exist but the job row is missing (no live row, and the last transition did not finish it)",
        });
  }
  return { mismatches, events, jobs };
}

function group<T extends { jobId: string }>(xs: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const list = m.get(x.jobId);
    if (list) list.push(x);
    else m.set(x.jobId, [x]);
  }
  return m;
}

/**
 * Check every job with activity in [from, to): submitted (job_catalog_created_idx),
 * moved by someone other than a worker (job_log: the window's day partitions,
 * job_log_at_brin) or with an attempt that ended (job_attempts_finished_brin).
 */
export async function checkWindow(db: Db, from: Date, to: Date): Promise<CheckResult> {
  const started = performance.now();
  const ids = await execute<{ jobId: string }>(
    db,
    sql`
    SELECT id AS job_id FROM job_catalog WHERE created_at >= ${from} AND created_at < ${to}
    UNION
    SELECT job_id FROM job_log WHERE at >= ${from} AND at < ${to}
    UNION
    SELECT job_id FROM job_attempts WHERE finished_at >= ${from} AND finished_at < ${to}`,
  );
  const r = await checkJobs(
    db,
    ids.map((x) => x.jobId),
  );
  return {
    windowFrom: from,
    windowTo: to,
    jobsChecked: r.jobs,
    eventsRebuilt: r.events,
    mismatches: r.mismatches,
    durationMs: Math.round(performance.now() - started),
  };
}

export type StoredCheck = {
  id: number;
  windowFrom: Date;
  windowTo: Date;
  jobsChecked: number;
  mismatches: number;
  details: Mismatch[];
  durationMs: number;
  actor: string;
  at: Date;
};

/** At most this many mismatches are stored per check; the count is always exact. */
const STORED_DETAILS = 200;

/**
 * The scheduled check: from the end of the last stored check (or `since`) up
 * to now minus `lagMs` (so transactions still in flight are not half-read),
 * then store the result. Running it every few minutes keeps each run small.
 */
export async function runIncrementalCheck(
  db: Db,
  opts: { actor: string; since?: Date; lagMs?: number; from?: Date; to?: Date },
): Promise<CheckResult & { id: number }> {
  const [{ now } = { now: new Date() }] = await execute<{ now: Date }>(db, sql`SELECT now() AS now`);
  const to = opts.to ?? new Date(now.getTime() - (opts.lagMs ?? 5_000));
  let from = opts.from;
  if (!from) {
    const [last] = await execute<{ windowTo: Date }>(db, sql`SELECT window_to FROM integrity_audits ORDER BY window_to DESC LIMIT 1`);
    from = last?.windowTo ?? opts.since ?? new Date(0);
  }
  if (from > to) from = to;
  const result = await checkWindow(db, from, to);
  const [row] = await execute<{ id: number }>(
    db,
    sql`
    INSERT INTO integrity_audits (window_from, window_to, jobs_checked, mismatches, details, duration_ms, actor)
    VALUES (${from}, ${to}, ${result.jobsChecked}, ${result.mismatches.length},
            ${sql.param(result.mismatches.slice(0, STORED_DETAILS) as never)}, ${result.durationMs}, ${opts.actor})
    RETURNING id`,
  );
  return { ...result, id: Number(row!.id) };
}

export async function recentChecks(db: Db, limit = 20): Promise<StoredCheck[]> {
  const rows = await execute<StoredCheck>(
    db,
    sql`
    SELECT id, window_from, window_to, jobs_checked, mismatches, details, duration_ms, actor, at
      FROM integrity_audits ORDER BY at DESC, id DESC LIMIT ${limit}`,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
