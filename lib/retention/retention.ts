import type { Sql } from "../db/client";

export type RetentionOptions = {
  /** Terminal jobs that finished longer ago than this are removed with their history. */
  olderThanDays: number;
  /** Jobs per transaction: each batch is short, so workers and the console never wait long. */
  batchSize?: number;
  /** Keep a copy of each removed job (row, run records, events) as one JSON document in job_archive. */
  archive?: boolean;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** Stop after this many batches (tests, or a bounded nightly slot). */
  maxBatches?: number;
  log?: (line: string) => void;
};

export type RetentionReport = { jobs: number; runs: number; events: number; archived: number; batches: number; cutoff: Date };

/**
 * Remove old terminal jobs and their run records and events, in batches. Each
 * batch is one statement in a transaction marked for retention — the only
 * mark under which the history tables' delete guards let rows go
 * (drizzle/0007_scale.sql) — and locks its jobs with SKIP LOCKED, so an
 * operator replaying one of them at that moment simply keeps it.
 */
export async function runRetention(sql: Sql, opts: RetentionOptions): Promise<RetentionReport> {
  if (!(opts.olderThanDays > 0)) throw new Error(`olderThanDays must be a positive number of days, not ${opts.olderThanDays}`);
  const batch = opts.batchSize ?? 5000;
  if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) throw new Error(`batchSize must be an integer from 1 to 100000, not ${batch}`);
  const [{ cutoff } = { cutoff: new Date(0) }] = await sql<{ cutoff: Date }[]>`
    SELECT now() - ${opts.olderThanDays} * interval '1 day' AS cutoff`;
  const report: RetentionReport = { jobs: 0, runs: 0, events: 0, archived: 0, batches: 0, cutoff };
  if (opts.dryRun) {
    const [r] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ${cutoff}`;
    report.jobs = r?.n ?? 0;
    return report;
  }
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
          DELETE FROM job_events e USING victims v WHERE e.job_id = v.id RETURNING 1
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
    opts.log?.(`batch ${report.batches}: ${r?.jobs ?? 0} jobs, ${r?.runs ?? 0} runs, ${r?.events ?? 0} events`);
    if ((r?.jobs ?? 0) < batch) break;
  }
  return report;
}
