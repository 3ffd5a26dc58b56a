import type { Db } from "../db/client";
import { TERMINAL_STATES } from "../fsm/table";
import { candidatePartitions, dropOrKeep, dryRunVerdicts, type PartitionVerdict } from "./day-partitions";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

export type { PartitionVerdict } from "./day-partitions";

export type RetentionOptions = {
  /** Finished jobs whose last transition is older than this are removed with their history. */
  olderThanDays: number;
  /** Jobs per transaction (also when deleting gone jobs' events from a kept partition): short batches, so workers and the console never wait long. */
  batchSize?: number;
  /** Keep a copy of each removed job (its catalog row, attempts and events) as one JSON document in job_archive. */
  archive?: boolean;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** Stop after this many batches of jobs (tests, or a bounded nightly slot). */
  maxBatches?: number;
  /**
   * Drop the job_log day partitions wholly older than the cutoff (default). False: delete
   * every removed job's job_log rows row by row, as before partitioning (the benchmark's baseline).
   */
  dropPartitions?: boolean;
  log?: (line: string) => void;
};

export type RetentionReport = {
  jobs: number;
  /** Run records: the removed jobs' attempts. */
  runs: number;
  /** job_log rows deleted row by row (outside dropped partitions). */
  events: number;
  archived: number;
  batches: number;
  cutoff: Date;
  partitions: PartitionVerdict[];
  partitionsDropped: number;
  partitionsKept: number;
  /** job_log rows that went with dropped partitions. */
  eventsDropped: number;
};

/**
 * Remove finished jobs whose last transition is older than the cutoff, with their whole
 * history: the catalog row, the attempts and the job_log rows (drizzle/0012).
 *
 * 1. Jobs in batches (`removeBatch` below): each batch is one statement in a
 *    transaction marked for retention — the only mark under which the history tables' delete
 *    guards let rows go — locking the jobs' catalog rows with SKIP LOCKED. A job with a live
 *    row is never removed. The job_log rows that sit in a day partition wholly older than the
 *    cutoff stay for step 2.
 * 2. Each job_log day partition wholly older than the cutoff is dropped if none of its rows
 *    belongs to a job that still exists (a catalog row: a job still live, finished after the
 *    cutoff, or not reached by a bounded run). Otherwise it is kept, and its rows whose job is
 *    gone are deleted in batches (lib/retention/day-partitions.ts).
 *
 * A dry run walks the same batches and counts them, removing nothing.
 * Only the table's owner can drop a partition: the runtime roles own none.
 */
export async function runRetention(db: Db, opts: RetentionOptions): Promise<RetentionReport> {
  if (!(opts.olderThanDays > 0)) throw new Error(`olderThanDays must be a positive number of days, not ${opts.olderThanDays}`);
  const batch = opts.batchSize ?? 5000;
  if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) throw new Error(`batchSize must be an integer from 1 to 100000, not ${batch}`);
  const log = opts.log ?? (() => {});
  const dryRun = opts.dryRun ?? false;
  const [{ cutoff } = { cutoff: new Date(0) }] = await execute<{ cutoff: Date }>(
    db,
    sql`
    SELECT now() - ${opts.olderThanDays} * interval '1 day' AS cutoff`,
  );
  const report: RetentionReport = {
    jobs: 0,
    runs: 0,
    events: 0,
    archived: 0,
    batches: 0,
    cutoff,
    partitions: [],
    partitionsDropped: 0,
    partitionsKept: 0,
    eventsDropped: 0,
  };
  const { candidates, skip } = opts.dropPartitions === false ? { candidates: [], skip: [] } : await candidatePartitions(db, cutoff);

  let after: Cursor = START;
  for (;;) {
    if (opts.maxBatches !== undefined && report.batches >= opts.maxBatches) break;
    const r = await removeBatch(db, { cutoff, after, batch, skip, archive: opts.archive ?? false, dryRun });
    if (r.read === 0) break;
    report.batches++;
    report.jobs += r.jobs;
    report.runs += r.runs;
    report.events += r.events;
    report.archived += r.archived;
    log(`batch ${report.batches}: ${r.jobs} jobs, ${r.runs} runs, ${r.events} job_log rows${dryRun ? " (dry run)" : ""}`);
    if (!r.next || r.read < batch) break;
    after = r.next;
  }

  if (dryRun) await dryRunVerdicts(db, candidates, cutoff, report);
  else await dropOrKeep(db, candidates, batch, report, log);
  return report;
}

/*
 * The finished jobs retention removes, found batch by batch through the transitions that
 * finished them (drizzle/0012): a job is finished when it has no live row, and its finished
 * time is its last transition's. Every finishing transition has an entry in a partial btree —
 * job_attempts_final_idx (end_to, finished_at DESC, job_id DESC) for a worker's, job_log_final_idx
 * (to_state, at DESC, job_id DESC) for anyone else's — so a batch reads, for each of the three
 * terminal states in each table, at most `batch` entries older than the cutoff after a keyset
 * cursor, oldest first, and keeps the oldest `batch` of them. A finishing transition is skipped
 * when the job came back (a live row) or an operator replayed it after it (a later job_log row):
 * that job's last transition is another one. The cursor moves past every entry read, skipped
 * or not, so no batch reads an entry twice.
 */
/** `at` is PostgreSQL's text of the timestamp: a Date would drop its microseconds, and the cursor would read entries again. */
type Cursor = { at: string; jobId: string };
const START: Cursor = { at: "-infinity", jobId: "00000000-0000-0000-0000-000000000000" };

/** One branch per terminal state and table: each an index range in (time, job id) order, so the union is merged, not sorted whole. */
function branches(cutoff: Date, after: Cursor, batch: number) {
  const parts = TERMINAL_STATES.flatMap((name) => {
    // A literal, not a parameter: the partial indexes' predicate (IN the terminal states) must be provable from it in every plan.
    const state = sql.raw(`'${name}'::job_state`);
    return [
      sql`(SELECT job_id, finished_at AS at, end_version AS v, end_to AS state FROM job_attempts
          WHERE end_to = ${state} AND finished_at < ${cutoff} AND (finished_at, job_id) > (${after.at}::text::timestamptz, ${after.jobId}::uuid)
          ORDER BY finished_at, job_id LIMIT ${batch})`,
      sql`(SELECT job_id, at, state_version AS v, to_state AS state FROM job_log
          WHERE to_state = ${state} AND at < ${cutoff} AND (at, job_id) > (${after.at}::text::timestamptz, ${after.jobId}::uuid)
          ORDER BY at, job_id LIMIT ${batch})`,
    ];
  });
  return parts.reduce((acc, p) => sql`${acc} UNION ALL ${p}`);
}

/**
 * The WITH list shared by the count (dry run) and the delete: `cand` (the batch of finishing
 * transitions), `victims` (the jobs to remove, their catalog rows locked with SKIP LOCKED, so a
 * job another transaction holds is left for the next run), and `next` (the cursor after it).
 */
function victimsCtes(cutoff: Date, after: Cursor, batch: number) {
  return sql`
    cand AS MATERIALIZED (
      SELECT job_id, at, v, state FROM (${branches(cutoff, after, batch)}) u ORDER BY at, job_id LIMIT ${batch}),
    victims AS MATERIALIZED (
      -- A job is here once at most: of its finishing transitions, all but the last were replayed after.
      SELECT k.id, k.tenant_id, k.created_at, c.at AS finished_at
        FROM cand c JOIN job_catalog k ON k.id = c.job_id
       WHERE NOT EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = c.job_id)
         -- A replay after this finish (only a dead job can be replayed, by an operator, in job_log): the partitions from it on.
         AND (c.state <> 'dead' OR NOT EXISTS (SELECT 1 FROM job_log r WHERE r.job_id = c.job_id AND r.state_version > c.v AND r.at >= c.at))
       ORDER BY k.id -- rows locked in id order, as the write path locks them
       FOR UPDATE OF k SKIP LOCKED),
    next AS (SELECT at, job_id FROM cand ORDER BY at DESC, job_id DESC LIMIT 1)`;
}

/**
 * The batch's job_log rows outside `skip`. A job's rows lie between its submit and its last
 * transition, so only the partitions between the batch's earliest submit and latest finish are
 * searched (pruned when the statement runs), each by its (job_id, state_version) index; a join on
 * the victims instead was planned as a hash join over every partition's rows.
 */
function batchLog(skip: readonly string[]) {
  return sql`e.job_id = ANY(ARRAY(SELECT id FROM victims))
    AND e.at >= (SELECT min(created_at) FROM victims) AND e.at <= (SELECT max(finished_at) FROM victims)
    AND e.tableoid <> ALL(${sql.param(skip)}::oid[])`;
}

type BatchCounts = { jobs: number; runs: number; events: number; archived: number; read: number; next: Cursor | null };

/**
 * One batch, in a transaction marked for retention (the only mark under which the history
 * tables' delete guards let rows go: drizzle/0012). Job_log rows in `skip` (day partitions
 * that will be dropped whole) stay for the drop. `dryRun`: the same batch counted, nothing
 * removed.
 */
async function removeBatch(
  db: Db,
  o: { cutoff: Date; after: Cursor; batch: number; skip: readonly string[]; archive: boolean; dryRun: boolean },
): Promise<BatchCounts> {
  const rows = await db.transaction(async (tx) => {
    await execute(tx, sql`SELECT set_config('jobscope.retention', 'on', true)`);
    const ctes = victimsCtes(o.cutoff, o.after, o.batch);
    if (o.dryRun) {
      return execute<Omit<BatchCounts, "next"> & { nextAt: string | null; nextJobId: string | null }>(
        tx,
        sql`
        WITH ${ctes}
        SELECT (SELECT count(*)::int FROM victims) AS jobs,
               (SELECT count(*)::int FROM job_attempts a JOIN victims v ON a.job_id = v.id) AS runs,
               (SELECT count(*)::int FROM job_log e WHERE ${batchLog(o.skip)}) AS events,
               0 AS archived, (SELECT count(*)::int FROM cand) AS read,
               (SELECT at::text FROM next) AS next_at, (SELECT job_id FROM next) AS next_job_id`,
      );
    }
    return execute<Omit<BatchCounts, "next"> & { nextAt: string | null; nextJobId: string | null }>(
      tx,
      sql`
      WITH ${ctes},
      archived AS (
        INSERT INTO job_archive (job_id, tenant_id, finished_at, record)
        SELECT k.id, k.tenant_id, v.finished_at, jsonb_build_object(
                 'catalog', to_jsonb(k),
                 'attempts', (SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.attempt), '[]') FROM job_attempts a WHERE a.job_id = k.id),
                 'events', (SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY e.state_version), '[]') FROM job_events e WHERE e.job_id = k.id))
          FROM victims v JOIN job_catalog k ON k.id = v.id
         WHERE ${o.archive}
        ON CONFLICT (job_id) DO NOTHING
        RETURNING 1),
      events AS (DELETE FROM job_log e WHERE ${batchLog(o.skip)} RETURNING 1),
      runs AS (DELETE FROM job_attempts a USING victims v WHERE a.job_id = v.id RETURNING 1),
      gone AS (DELETE FROM job_catalog k USING victims v WHERE k.id = v.id RETURNING 1)
      SELECT (SELECT count(*)::int FROM gone) AS jobs, (SELECT count(*)::int FROM runs) AS runs,
             (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM archived) AS archived,
             (SELECT count(*)::int FROM cand) AS read, (SELECT at::text FROM next) AS next_at, (SELECT job_id FROM next) AS next_job_id`,
    );
  });
  const r = rows[0]!;
  return {
    jobs: r.jobs,
    runs: r.runs,
    events: r.events,
    archived: r.archived,
    read: r.read,
    next: r.nextAt && r.nextJobId ? { at: r.nextAt, jobId: r.nextJobId } : null,
  };
}
