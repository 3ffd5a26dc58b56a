import type { Sql } from "../db/client";
import { listEventPartitions } from "../db/partitions";
import { removeBatch, START, type Cursor } from "./finished-jobs";

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

/** What retention did (or, in a dry run, would do) with one job_log partition wholly older than the cutoff. */
export type PartitionVerdict = {
  name: string;
  from: Date;
  to: Date;
  action: "dropped" | "kept";
  /** Dropped: the rows that went with the partition. Kept: the rows deleted from it one by one. */
  events: number;
  /** Why a partition was kept. */
  reason?: string;
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

const LOCK_TIMEOUT = "5s";

/**
 * Remove finished jobs whose last transition is older than the cutoff, with their whole
 * history: the catalog row, the attempts and the job_log rows (drizzle/0012).
 *
 * 1. Jobs in batches (lib/retention/finished-jobs.ts): each batch is one statement in a
 *    transaction marked for retention — the only mark under which the history tables' delete
 *    guards let rows go — locking the jobs' catalog rows with SKIP LOCKED. A job with a live
 *    row is never removed. The job_log rows that sit in a day partition wholly older than the
 *    cutoff stay for step 2.
 * 2. Each job_log day partition wholly older than the cutoff is dropped if none of its rows
 *    belongs to a job that still exists (a catalog row: a job still live, finished after the
 *    cutoff, or not reached by a bounded run). Otherwise it is kept, and its rows whose job is
 *    gone are deleted in batches.
 *
 * A dry run walks the same batches and counts them, removing nothing.
 * Only the table's owner can drop a partition: the runtime roles own none.
 */
export async function runRetention(sql: Sql, opts: RetentionOptions): Promise<RetentionReport> {
  if (!(opts.olderThanDays > 0)) throw new Error(`olderThanDays must be a positive number of days, not ${opts.olderThanDays}`);
  const batch = opts.batchSize ?? 5000;
  if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) throw new Error(`batchSize must be an integer from 1 to 100000, not ${batch}`);
  const log = opts.log ?? (() => {});
  const dryRun = opts.dryRun ?? false;
  const [{ cutoff } = { cutoff: new Date(0) }] = await sql<{ cutoff: Date }[]>`
    SELECT now() - ${opts.olderThanDays} * interval '1 day' AS cutoff`;
  const report: RetentionReport = {
    jobs: 0, runs: 0, events: 0, archived: 0, batches: 0, cutoff,
    partitions: [], partitionsDropped: 0, partitionsKept: 0, eventsDropped: 0,
  };
  const candidates = opts.dropPartitions === false ? [] : (await listEventPartitions(sql))
    .filter((p): p is typeof p & { from: Date; to: Date } => !p.isDefault && p.from !== null && p.to !== null && p.to.getTime() <= cutoff.getTime());
  const skip = candidates.length === 0 ? [] : (await sql<{ oid: string }[]>`
    SELECT c.oid::text AS oid FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY(${candidates.map((p) => p.name)})`).map((r) => r.oid);

  let after: Cursor = START;
  for (;;) {
    if (opts.maxBatches !== undefined && report.batches >= opts.maxBatches) break;
    const r = await removeBatch(sql, { cutoff, after, batch, skip, archive: opts.archive ?? false, dryRun });
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

  if (dryRun) {
    for (const p of candidates) {
      // After the batches, the jobs still having rows here would be those not finished before the cutoff.
      const [b] = await sql<{ blockers: number; sample: string[] | null; events: number }[]>`
        WITH staying AS (
          SELECT DISTINCT e.job_id FROM ${sql(p.name)} e JOIN job_catalog c ON c.id = e.job_id
           WHERE EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = e.job_id)
              OR (SELECT f.at FROM job_last_transition(e.job_id) f) >= ${cutoff})
        SELECT (SELECT count(*)::int FROM staying) AS blockers, (SELECT (array_agg(job_id::text))[1:3] FROM staying) AS sample,
               (SELECT count(*)::int FROM ${sql(p.name)}) AS events`;
      addVerdict(report, p, b?.blockers ?? 0, b?.sample ?? [], b?.blockers ? 0 : (b?.events ?? 0));
    }
    return report;
  }

  for (const p of candidates) {
    // SHARE: nothing can write into this partition while it is checked; the rest of job_log is untouched
    // until DROP takes its brief exclusive lock. lock_timeout: rather keep the day than queue writers behind us.
    const outcome = await sql
      .begin(async (tx) => {
        await tx`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`;
        await tx`LOCK TABLE ${tx(p.name)} IN SHARE MODE`;
        const [b] = await tx<{ blockers: number; sample: string[] | null }[]>`
          SELECT count(*)::int AS blockers, (array_agg(job_id::text))[1:3] AS sample
            FROM (SELECT DISTINCT e.job_id FROM ${tx(p.name)} e JOIN job_catalog c ON c.id = e.job_id) s`;
        if (b && b.blockers > 0) return { blockers: b.blockers, sample: b.sample ?? [], events: 0 };
        const [c] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM ${tx(p.name)}`;
        await tx`DROP TABLE ${tx(p.name)}`;
        return { blockers: 0, sample: [], events: c?.n ?? 0 };
      })
      .catch((e: unknown) => {
        if ((e as { code?: string }).code === "55P03") return null; // lock_not_available
        throw e;
      });
    if (outcome === null) {
      report.partitions.push({ name: p.name, from: p.from, to: p.to, action: "kept", events: 0, reason: `could not lock it within ${LOCK_TIMEOUT}; the next run retries` });
      report.partitionsKept++;
      log(`partition ${p.name} kept: lock timeout`);
      continue;
    }
    let deleted = 0;
    if (outcome.blockers > 0) {
      // The jobs gone from under this partition's events, read once (a job id never comes back),
      // then their events deleted by job id through the partition's (job_id, state_version) index,
      // `batch` jobs per transaction: no rescanning of rows already deleted.
      const gone = (await sql<{ jobId: string }[]>`
        SELECT DISTINCT e.job_id FROM ${sql(p.name)} e WHERE NOT EXISTS (SELECT 1 FROM job_catalog c WHERE c.id = e.job_id)`).map((r) => r.jobId);
      for (let i = 0; i < gone.length; i += batch) {
        const ids = gone.slice(i, i + batch);
        deleted += await sql.begin(async (tx) => {
          await tx`SELECT set_config('jobscope.retention', 'on', true)`;
          return (await tx`DELETE FROM ${tx(p.name)} WHERE job_id = ANY(${ids}::uuid[])`).count;
        });
      }
      report.events += deleted;
    }
    addVerdict(report, p, outcome.blockers, outcome.sample, outcome.blockers > 0 ? deleted : outcome.events);
    const v = report.partitions.at(-1)!;
    log(`partition ${p.name} ${v.action}: ${v.events} events${v.reason ? ` (${v.reason})` : ""}`);
  }
  return report;
}

function addVerdict(report: RetentionReport, p: { name: string; from: Date; to: Date }, blockers: number, sample: string[], events: number) {
  if (blockers > 0) {
    report.partitions.push({
      name: p.name, from: p.from, to: p.to, action: "kept", events,
      reason: `${blockers} job(s) still live or finished after the cutoff have job_log rows in it (e.g. ${sample.join(", ")})`,
    });
    report.partitionsKept++;
  } else {
    report.partitions.push({ name: p.name, from: p.from, to: p.to, action: "dropped", events });
    report.partitionsDropped++;
    report.eventsDropped += events;
  }
}
