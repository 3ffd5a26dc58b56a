import type { Sql } from "../db/client";
import { listEventPartitions } from "../db/partitions";

export type RetentionOptions = {
  /** Terminal jobs that finished longer ago than this are removed with their history. */
  olderThanDays: number;
  /** Jobs per transaction (also when deleting gone jobs' events from a kept partition): short batches, so workers and the console never wait long. */
  batchSize?: number;
  /** Keep a copy of each removed job (row, run records, events) as one JSON document in job_archive. */
  archive?: boolean;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** Stop after this many batches of jobs (tests, or a bounded nightly slot). */
  maxBatches?: number;
  /**
   * Drop the event partitions wholly older than the cutoff (default). False: delete
   * every removed job's events row by row, as before partitioning (the benchmark's baseline).
   */
  dropPartitions?: boolean;
  log?: (line: string) => void;
};

/** What retention did (or, in a dry run, would do) with one event partition wholly older than the cutoff. */
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
  runs: number;
  /** Events deleted row by row (outside dropped partitions). */
  events: number;
  archived: number;
  batches: number;
  cutoff: Date;
  partitions: PartitionVerdict[];
  partitionsDropped: number;
  partitionsKept: number;
  /** Events that went with dropped partitions. */
  eventsDropped: number;
};

const LOCK_TIMEOUT = "5s";

/**
 * Remove old terminal jobs and their run records and events.
 *
 * 1. Jobs in batches: each batch is one statement in a transaction marked for
 *    retention — the only mark under which the history tables' delete guards
 *    let rows go (drizzle/0007_scale.sql) — locking its jobs with SKIP LOCKED,
 *    so an operator replaying one of them at that moment simply keeps it. The
 *    batch deletes the jobs' runs and their events, except the events that sit
 *    in a partition wholly older than the cutoff: those go in step 2.
 * 2. Each event partition wholly older than the cutoff (drizzle/0009) is
 *    dropped if no event in it belongs to a job that still exists (a job still
 *    live, or finished after the cutoff). Otherwise it is kept, and the events
 *    in it whose job is gone are deleted in batches.
 *
 * Only the table's owner can drop a partition: the runtime roles own none.
 */
export async function runRetention(sql: Sql, opts: RetentionOptions): Promise<RetentionReport> {
  if (!(opts.olderThanDays > 0)) throw new Error(`olderThanDays must be a positive number of days, not ${opts.olderThanDays}`);
  const batch = opts.batchSize ?? 5000;
  if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) throw new Error(`batchSize must be an integer from 1 to 100000, not ${batch}`);
  const log = opts.log ?? (() => {});
  const [{ cutoff } = { cutoff: new Date(0) }] = await sql<{ cutoff: Date }[]>`
    SELECT now() - ${opts.olderThanDays} * interval '1 day' AS cutoff`;
  const report: RetentionReport = {
    jobs: 0, runs: 0, events: 0, archived: 0, batches: 0, cutoff,
    partitions: [], partitionsDropped: 0, partitionsKept: 0, eventsDropped: 0,
  };
  const candidates = opts.dropPartitions === false ? [] : (await listEventPartitions(sql))
    .filter((p): p is typeof p & { from: Date; to: Date } => !p.isDefault && p.from !== null && p.to !== null && p.to.getTime() <= cutoff.getTime());

  if (opts.dryRun) {
    const [r] = await sql<{ jobs: number; runs: number }[]>`
      SELECT count(*)::int AS jobs, coalesce(sum((SELECT count(*) FROM job_runs r WHERE r.job_id = j.id)), 0)::int AS runs
        FROM jobs j WHERE finished_at IS NOT NULL AND finished_at < ${cutoff}`;
    report.jobs = r?.jobs ?? 0;
    report.runs = r?.runs ?? 0;
    for (const p of candidates) {
      // After the jobs went, the jobs still having events here would be the ones not old and terminal.
      const [b] = await sql<{ blockers: number; sample: string[] | null; events: number }[]>`
        SELECT (SELECT count(DISTINCT e.job_id)::int FROM ${sql(p.name)} e JOIN jobs j ON j.id = e.job_id
                 WHERE j.finished_at IS NULL OR j.finished_at >= ${cutoff}) AS blockers,
               (SELECT array_agg(DISTINCT e.job_id::text) FROM (SELECT e.job_id FROM ${sql(p.name)} e JOIN jobs j ON j.id = e.job_id
                 WHERE j.finished_at IS NULL OR j.finished_at >= ${cutoff} LIMIT 3) e) AS sample,
               (SELECT count(*)::int FROM ${sql(p.name)}) AS events`;
      addVerdict(report, p, b?.blockers ?? 0, b?.sample ?? [], b?.blockers ? 0 : (b?.events ?? 0));
    }
    return report;
  }

  const skip = candidates.length === 0 ? [] : (await sql<{ oid: string }[]>`
    SELECT c.oid::text AS oid FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY(${candidates.map((p) => p.name)})`).map((r) => r.oid);

  for (;;) {
    if (opts.maxBatches !== undefined && report.batches >= opts.maxBatches) break;
    const [r] = await sql.begin(async (tx) => {
      await tx`SELECT set_config('jobscope.retention', 'on', true)`;
      return tx<{ jobs: number; runs: number; events: number; archived: number }[]>`
        WITH victims AS (
          SELECT id FROM jobs
           WHERE finished_at IS NOT NULL AND finished_at < ${cutoff}
           ORDER BY finished_at DESC, id DESC
           LIMIT ${batch}
           FOR UPDATE SKIP LOCKED
        ), archived AS (
          INSERT INTO job_archive (job_id, tenant_id, finished_at, record)
          SELECT j.id, j.tenant_id, j.finished_at, jsonb_build_object(
                   'job', to_jsonb(j),
                   'runs', (SELECT coalesce(jsonb_agg(to_jsonb(r) ORDER BY r.attempt), '[]') FROM job_runs r WHERE r.job_id = j.id),
                   'events', (SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY e.state_version), '[]') FROM job_events e WHERE e.job_id = j.id))
            FROM jobs j JOIN victims v ON v.id = j.id
           WHERE ${opts.archive ?? false}
          ON CONFLICT (job_id) DO NOTHING
          RETURNING 1
        ), events AS (
          DELETE FROM job_events e USING victims v
           WHERE e.job_id = v.id AND e.tableoid <> ALL(${skip}::oid[])
          RETURNING 1
        ), runs AS (
          DELETE FROM job_runs r USING victims v WHERE r.job_id = v.id RETURNING 1
        ), gone AS (
          DELETE FROM jobs j USING victims v WHERE j.id = v.id RETURNING 1
        )
        SELECT (SELECT count(*)::int FROM gone) AS jobs, (SELECT count(*)::int FROM runs) AS runs,
               (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM archived) AS archived`;
    });
    report.batches++;
    report.jobs += r?.jobs ?? 0;
    report.runs += r?.runs ?? 0;
    report.events += r?.events ?? 0;
    report.archived += r?.archived ?? 0;
    log(`batch ${report.batches}: ${r?.jobs ?? 0} jobs, ${r?.runs ?? 0} runs, ${r?.events ?? 0} events`);
    if ((r?.jobs ?? 0) < batch) break;
  }

  for (const p of candidates) {
    // SHARE: nothing can write into this partition while it is checked; the rest of job_events is untouched
    // until DROP takes its brief exclusive lock. lock_timeout: rather keep the day than queue writers behind us.
    const outcome = await sql
      .begin(async (tx) => {
        await tx`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`;
        await tx`LOCK TABLE ${tx(p.name)} IN SHARE MODE`;
        const [b] = await tx<{ blockers: number; sample: string[] | null }[]>`
          SELECT count(*)::int AS blockers, (array_agg(job_id::text))[1:3] AS sample
            FROM (SELECT DISTINCT e.job_id FROM ${tx(p.name)} e JOIN jobs j ON j.id = e.job_id) s`;
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
        SELECT DISTINCT e.job_id FROM ${sql(p.name)} e WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = e.job_id)`).map((r) => r.jobId);
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
      reason: `${blockers} job(s) still live or finished after the cutoff have events in it (e.g. ${sample.join(", ")})`,
    });
    report.partitionsKept++;
  } else {
    report.partitions.push({ name: p.name, from: p.from, to: p.to, action: "dropped", events });
    report.partitionsDropped++;
    report.eventsDropped += events;
  }
}
