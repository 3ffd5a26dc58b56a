// `npx tsx scripts/retention-bench.ts [--jobs 50000] [--runs 3]`
// Retention of one old day: dropping its job_log partition vs deleting its rows (lib/retention,
// `dropPartitions: false`). Each measurement gets a fresh database with --jobs old finished jobs
// in one day 40 days ago and as many recent ones, each as the write path stores it (drizzle/0012):
// a catalog row, two attempts (a failed one and a finished one, each carrying the worker's claim,
// start and closing event) and one job_log row (the supervisor's retry between them); then
// `runRetention({ olderThanDays: 30 })`: wall time and WAL written (pg_current_wal_lsn
// before/after, after a CHECKPOINT). Embedded PostgreSQL in .data/retention-bench-pg unless
// DATABASE_URL (an admin URL) is set.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { closeDb, connect } from "../lib/db/client";
import { ensureDatabase, startEmbeddedPostgres } from "../lib/db/embedded";
import { migrateDatabase } from "../lib/db/migrate";
import { dailyPartitionName, ensureEventPartitions, listEventPartitions } from "../lib/db/partitions";
import { runRetention } from "../lib/retention/retention";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values } = parseArgs({ options: { jobs: { type: "string", default: "50000" }, runs: { type: "string", default: "3" } } });
const N = Number(values.jobs);
const RUNS = Number(values.runs);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(RUNS) || RUNS < 1) throw new Error("--jobs and --runs are positive integers");

const dataDir = ".data/retention-bench-pg";
const server = process.env.DATABASE_URL
  ? { adminUrl: process.env.DATABASE_URL, stop: async () => {} }
  : await startEmbeddedPostgres({ dataDir, fresh: true });

async function freshLoadedDb(name: string): Promise<string> {
  const admin = connect(server.adminUrl, { max: 1 });
  await execute(admin, sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  await closeDb(admin);
  const url = await ensureDatabase(server.adminUrl, name);
  await migrateDatabase(url);
  const db = connect(url, { max: 1 });
  await ensureEventPartitions(db, { daysBack: 45 });
  await db.transaction(async (tx) => {
    // A bulk load, not the write path: the guards are off for this transaction only.
    await execute(tx, sql`SET LOCAL session_replication_role = replica`);
    await execute(tx, sql`INSERT INTO tenants (id, name) VALUES ('acme', 'ACME')`);
    for (const [label, day] of [
      ["old", "40 days"],
      ["recent", "1 day"],
    ] as const) {
      await execute(
        tx,
        sql.raw(`
        CREATE TEMP TABLE g_${label} ON COMMIT DROP AS
        SELECT gen_random_uuid() AS id, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '${day}'
                 + (i * (80000.0 / ${N})) * interval '1 second' AS at
          FROM generate_series(1, ${N}) i`),
      );
      await execute(
        tx,
        sql.raw(`
        INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, submitted_by_kind, submitted_by, created_at, not_before)
        SELECT id, 'acme', 'report.generate', 'bench', 0, 3, '{"report":"daily_usage"}', 'api', 'bench', at, at FROM g_${label} ORDER BY at`),
      );
      // Submit at +0 s; attempt 1 claimed +1, started +2, failed +3 (v1..v3); retried +4 (v4, job_log); attempt 2 claimed +5, started +6, finished +7 (v5..v7).
      await execute(
        tx,
        sql.raw(`
        INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, started_at, finished_at, outcome, max_attempts,
                                  end_event, end_from, end_to, end_version, retry_at, error_class, error_message, result)
        SELECT id, a.n, 'acme', 'w-1', at + (a.c * interval '1 s'), a.c, at + ((a.c + 1) * interval '1 s'), at + ((a.c + 2) * interval '1 s'),
               a.outcome::run_outcome, 3, a.event::job_event, 'running', a.to_state::job_state, a.c + 2,
               CASE WHEN a.n = 1 THEN at + interval '4 s' END, CASE WHEN a.n = 1 THEN 'UpstreamTimeout' END,
               CASE WHEN a.n = 1 THEN 'timed out' END, CASE WHEN a.n = 2 THEN '{"ok":1}'::jsonb END
          FROM g_${label}, (VALUES (1, 1, 'failed', 'fail', 'retry_wait'), (2, 5, 'succeeded', 'finish', 'succeeded')) AS a(n, c, outcome, event, to_state)
         ORDER BY at + ((a.c + 2) * interval '1 s')`),
      );
      await execute(
        tx,
        sql.raw(`
        INSERT INTO job_log (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, max_attempts)
        SELECT id, 'acme', 'retry', 'retry_wait', 'queued', 'supervisor', 'sup-1', 1, 4, at + interval '4 s', 3 FROM g_${label} ORDER BY at`),
      );
    }
  });
  // Steady state: one day older than the cutoff (the loaded one), not the 45 empty days created above.
  const oldDay = dailyPartitionName(new Date(Date.now() - 40 * 86_400_000));
  for (const p of await listEventPartitions(db)) {
    if (p.to && p.to.getTime() < Date.now() - 30 * 86_400_000 && p.name !== oldDay) await execute(db, sql`DROP TABLE ${sql.identifier(p.name)}`);
  }
  await execute(db, sql`VACUUM ANALYZE`);
  await execute(db, sql`CHECKPOINT`);
  await closeDb(db);
  return url;
}

type Result = { ms: number; walBytes: number; events: number; eventsDropped: number; jobs: number; kept: number };
type Mode = "whole, drop" | "whole, delete" | "events, drop" | "events, kept";
const LABELS: Record<Mode, string> = {
  "whole, drop": "whole retention, day partition dropped",
  "whole, delete": "whole retention, --no-drop (job_log rows deleted with jobs)",
  "events, drop": "the day's job_log alone, partition checked and dropped",
  "events, kept": "the day's job_log alone, partition kept (one live job)",
};
/**
 * Whole retention (catalog rows, attempts, job_log rows), or just the old day's job_log: its jobs'
 * catalog rows and attempts are deleted before the measurement, then retention drops the partition,
 * or — one of its jobs made live again, so the day must be kept — deletes the other jobs' rows from
 * it by job id.
 */
async function measure(mode: Mode, i: number): Promise<Result> {
  const url = await freshLoadedDb(`retention_bench_${mode.replace(/\W+/g, "_")}_${i}`);
  const db = connect(url, { max: 2 });
  if (mode.startsWith("events")) {
    await db.transaction(async (tx) => {
      await execute(tx, sql`SELECT set_config('jobscope.retention', 'on', true)`);
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      const old = sql`SELECT id FROM job_catalog WHERE created_at < now() - interval '30 days'`;
      if (mode === "events, kept") {
        await execute(
          tx,
          sql`INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
                 SELECT id, tenant_id, type, queue, priority, 'queued', 2, 4, 8, now(), params, created_at, now() FROM job_catalog
                  WHERE created_at < now() - interval '30 days' ORDER BY created_at LIMIT 1`,
        );
      }
      await execute(tx, sql`DELETE FROM job_attempts WHERE job_id IN (${old}) AND job_id NOT IN (SELECT id FROM jobs_live)`);
      await execute(tx, sql`DELETE FROM job_catalog WHERE id IN (${old}) AND id NOT IN (SELECT id FROM jobs_live)`);
    });
    await execute(db, sql`VACUUM ANALYZE job_catalog, job_attempts, jobs_live`);
    await execute(db, sql`CHECKPOINT`);
  }
  const [a] = await execute<{ lsn: string }>(db, sql`SELECT pg_current_wal_lsn()::text AS lsn`);
  const t0 = performance.now();
  const r = await runRetention(db, { olderThanDays: 30, dropPartitions: mode !== "whole, delete" });
  const ms = performance.now() - t0;
  const [b] = await execute<{ bytes: string }>(db, sql`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${a!.lsn}::pg_lsn)::bigint::text AS bytes`);
  await closeDb(db);
  return { ms, walBytes: Number(b!.bytes), events: r.events, eventsDropped: r.eventsDropped, jobs: r.jobs, kept: r.partitionsKept };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
try {
  console.log(
    `${N} old jobs (${N} job_log rows in one day partition, ${2 * N} attempts) and ${N} recent ones; retention --days 30; ${RUNS} runs each`,
  );
  for (const mode of Object.keys(LABELS) as Mode[]) {
    const rs: Result[] = [];
    for (let i = 0; i < RUNS; i++) rs.push(await measure(mode, i));
    console.log(
      `${LABELS[mode].padEnd(62)}: median ${median(rs.map((r) => r.ms)).toFixed(0)} ms, WAL ${(median(rs.map((r) => r.walBytes)) / 1048576).toFixed(1)} MiB` +
        `  [runs: ${rs.map((r) => `${r.ms.toFixed(0)} ms/${(r.walBytes / 1048576).toFixed(1)} MiB`).join(", ")}]` +
        ` (jobs ${rs[0]!.jobs}, job_log rows deleted ${rs[0]!.events}, dropped ${rs[0]!.eventsDropped}, partitions kept ${rs[0]!.kept})`,
    );
  }
} finally {
  await server.stop();
  if (!process.env.DATABASE_URL) rmSync(dataDir, { recursive: true, force: true });
}
