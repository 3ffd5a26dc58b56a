import type { Db } from "../db/client";
import { listEventPartitions } from "../db/partitions";
import type { RetentionReport } from "./retention";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

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

export type Candidate = { name: string; from: Date; to: Date };

const LOCK_TIMEOUT = "5s";

/**
 * The job_log day partitions wholly older than the cutoff (drizzle/0009, named job_log_* since
 * 0012), and their oids: the job batches leave these partitions' rows to the drop.
 */
export async function candidatePartitions(db: Db, cutoff: Date): Promise<{ candidates: Candidate[]; skip: string[] }> {
  const candidates = (await listEventPartitions(db)).filter(
    (p): p is typeof p & Candidate => !p.isDefault && p.from !== null && p.to !== null && p.to.getTime() <= cutoff.getTime(),
  );
  const skip =
    candidates.length === 0
      ? []
      : (
          await execute<{ oid: string }>(
            db,
            sql`
    SELECT c.oid::text AS oid FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY(${sql.param(candidates.map((p) => p.name))})`,
          )
        ).map((r) => r.oid);
  return { candidates, skip };
}

/** A dry run's verdicts: each partition would be kept if a job that stays (live, or finished after the cutoff) has rows in it. */
export async function dryRunVerdicts(db: Db, candidates: readonly Candidate[], cutoff: Date, report: RetentionReport): Promise<void> {
  for (const p of candidates) {
    // After the batches, the jobs still having rows here would be those not finished before the cutoff.
    const [b] = await execute<{ blockers: number; sample: string[] | null; events: number }>(
      db,
      sql`
      WITH staying AS (
        SELECT DISTINCT e.job_id FROM ${sql.identifier(p.name)} e JOIN job_catalog c ON c.id = e.job_id
         WHERE EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = e.job_id)
            OR (SELECT f.at FROM job_last_transition(e.job_id, c.created_at) f) >= ${cutoff})
      SELECT (SELECT count(*)::int FROM staying) AS blockers, (SELECT (array_agg(job_id::text))[1:3] FROM staying) AS sample,
             (SELECT count(*)::int FROM ${sql.identifier(p.name)}) AS events`,
    );
    addVerdict(report, p, b?.blockers ?? 0, b?.sample ?? [], b?.blockers ? 0 : (b?.events ?? 0));
  }
}

/**
 * After the job batches: drop each partition none of whose rows belongs to a job that still
 * exists (a catalog row: a job still live, finished after the cutoff, or not reached by a bounded
 * run); otherwise keep it and delete the rows of the gone jobs from it, `batch` jobs per
 * transaction under retention's mark. Only the table's owner can drop a partition.
 */
export async function dropOrKeep(
  db: Db,
  candidates: readonly Candidate[],
  batch: number,
  report: RetentionReport,
  log: (line: string) => void,
): Promise<void> {
  for (const p of candidates) {
    // SHARE: nothing can write into this partition while it is checked; the rest of job_log is untouched
    // until DROP takes its brief exclusive lock. lock_timeout: rather keep the day than queue writers behind us.
    const outcome = await db
      .transaction(async (tx) => {
        await execute(tx, sql`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`);
        await execute(tx, sql`LOCK TABLE ${sql.identifier(p.name)} IN SHARE MODE`);
        const [b] = await execute<{ blockers: number; sample: string[] | null }>(
          tx,
          sql`
          SELECT count(*)::int AS blockers, (array_agg(job_id::text))[1:3] AS sample
            FROM (SELECT DISTINCT e.job_id FROM ${sql.identifier(p.name)} e JOIN job_catalog c ON c.id = e.job_id) s`,
        );
        if (b && b.blockers > 0) return { blockers: b.blockers, sample: b.sample ?? [], events: 0 };
        const [c] = await execute<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM ${sql.identifier(p.name)}`);
        await execute(tx, sql`DROP TABLE ${sql.identifier(p.name)}`);
        return { blockers: 0, sample: [], events: c?.n ?? 0 };
      })
      .catch((e: unknown) => {
        if ((e as { code?: string }).code === "55P03") return null; // lock_not_available
        throw e;
      });
    if (outcome === null) {
      report.partitions.push({
        name: p.name,
        from: p.from,
        to: p.to,
        action: "kept",
        events: 0,
        reason: `could not lock it within ${LOCK_TIMEOUT}; the next run retries`,
      });
      report.partitionsKept++;
      log(`partition ${p.name} kept: lock timeout`);
      continue;
    }
    let deleted = 0;
    if (outcome.blockers > 0) {
      // The jobs gone from under this partition's events, read once (a job id never comes back),
      // then their events deleted by job id through the partition's (job_id, state_version) index,
      // `batch` jobs per transaction: no rescanning of rows already deleted.
      const gone = (
        await execute<{ jobId: string }>(
          db,
          sql`
        SELECT DISTINCT e.job_id FROM ${sql.identifier(p.name)} e WHERE NOT EXISTS (SELECT 1 FROM job_catalog c WHERE c.id = e.job_id)`,
        )
      ).map((r) => r.jobId);
      for (let i = 0; i < gone.length; i += batch) {
        const ids = gone.slice(i, i + batch);
        deleted += await db.transaction(async (tx) => {
          await execute(tx, sql`SELECT set_config('jobscope.retention', 'on', true)`);
          return (await execute(tx, sql`DELETE FROM ${sql.identifier(p.name)} WHERE job_id = ANY(${sql.param(ids)}::uuid[])`)).count;
        });
      }
      report.events += deleted;
    }
    addVerdict(report, p, outcome.blockers, outcome.sample, outcome.blockers > 0 ? deleted : outcome.events);
    const v = report.partitions.at(-1)!;
    log(`partition ${p.name} ${v.action}: ${v.events} events${v.reason ? ` (${v.reason})` : ""}`);
  }
}

function addVerdict(report: RetentionReport, p: { name: string; from: Date; to: Date }, blockers: number, sample: string[], events: number) {
  if (blockers > 0) {
    report.partitions.push({
      name: p.name,
      from: p.from,
      to: p.to,
      action: "kept",
      events,
      reason: `${blockers} job(s) still live or finished after the cutoff have job_log rows in it (e.g. ${sample.join(", ")})`,
    });
    report.partitionsKept++;
  } else {
    report.partitions.push({ name: p.name, from: p.from, to: p.to, action: "dropped", events });
    report.partitionsDropped++;
    report.eventsDropped += events;
  }
}
