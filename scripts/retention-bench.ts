// `npx tsx scripts/retention-bench.ts [--jobs 50000] [--runs 3]`
// Retention of one old day of job_events: dropping its partition vs deleting its rows
// (lib/retention, `dropPartitions: false`). Each measurement gets a fresh database with
// --jobs old terminal jobs (4 events and 1 run record each) in one day 40 days ago and as
// many recent ones, then `runRetention({ olderThanDays: 30 })`: wall time and WAL written
// (pg_current_wal_lsn before/after, after a CHECKPOINT). Embedded PostgreSQL in
// .data/retention-bench-pg unless DATABASE_URL (an admin URL) is set.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { connect } from "../lib/db/client";
import { ensureDatabase, startEmbeddedPostgres } from "../lib/db/embedded";
import { migrateDatabase } from "../lib/db/migrate";
import { dailyPartitionName, ensureEventPartitions, listEventPartitions } from "../lib/db/partitions";
import { runRetention } from "../lib/retention/retention";

const { values } = parseArgs({ options: { jobs: { type: "string", default: "50000" }, runs: { type: "string", default: "3" } } });
const N = Number(values.jobs);
const RUNS = Number(values.runs);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(RUNS) || RUNS < 1) throw new Error("--jobs and --runs are positive integers");

const dataDir = ".data/retention-bench-pg";
const server = process.env.DATABASE_URL
  ? { adminUrl: process.env.DATABASE_URL, stop: async () => {} }
  : await startEmbeddedPostgres({ dataDir, fresh: true });

async function freshLoadedDb(name: string): Promise<string> {
  const admin = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
  const url = await ensureDatabase(server.adminUrl, name);
  await migrateDatabase(url);
  const sql = connect(url, { max: 1 });
  await ensureEventPartitions(sql, { daysBack: 45 });
  await sql.begin(async (tx) => {
    // A bulk load, not the write path: the guards are off for this transaction only.
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`INSERT INTO tenants (id, name) VALUES ('acme', 'ACME')`;
    for (const [label, day] of [["old", "40 days"], ["recent", "1 day"]] as const) {
      await tx.unsafe(`
        CREATE TEMP TABLE g_${label} ON COMMIT DROP AS
        SELECT gen_random_uuid() AS id, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '${day}'
                 + (i * (80000.0 / ${N})) * interval '1 second' AS at
          FROM generate_series(1, ${N}) i`);
      await tx.unsafe(`
        INSERT INTO jobs (id, tenant_id, type, queue, state, attempt, max_attempts, state_version, params, created_at, updated_at, finished_at)
        SELECT id, 'acme', 'report.generate', 'bench', 'succeeded', 1, 3, 3, '{"report":"daily_usage"}', at, at + interval '3 s', at + interval '3 s' FROM g_${label}`);
      await tx.unsafe(`
        INSERT INTO job_runs (job_id, attempt, tenant_id, worker_id, claimed_at, started_at, finished_at, outcome, result)
        SELECT id, 1, 'acme', 'w-1', at + interval '1 s', at + interval '2 s', at + interval '3 s', 'succeeded', '{"ok":1}' FROM g_${label}`);
      await tx.unsafe(`
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
        SELECT g.id, 'acme', s.event::job_event, s.from_state::job_state, s.to_state::job_state, s.actor::actor_kind, s.actor_id, s.attempt, s.v,
               g.at + s.v * interval '1 s', CASE WHEN s.v = 0 THEN '{"maxAttempts":3}'::jsonb END
          FROM g_${label} g CROSS JOIN (VALUES ('submit', NULL, 'queued', 'api', 'bench', 0, 0), ('claim', 'queued', 'claimed', 'worker', 'w-1', 1, 1),
                                              ('start', 'claimed', 'running', 'worker', 'w-1', 1, 2), ('finish', 'running', 'succeeded', 'worker', 'w-1', 1, 3))
               AS s(event, from_state, to_state, actor, actor_id, attempt, v)`);
    }
  });
  // Steady state: one day older than the cutoff (the loaded one), not the 45 empty days created above.
  const oldDay = dailyPartitionName(new Date(Date.now() - 40 * 86_400_000));
  for (const p of await listEventPartitions(sql)) {
    if (p.to && p.to.getTime() < Date.now() - 30 * 86_400_000 && p.name !== oldDay) await sql`DROP TABLE ${sql(p.name)}`;
  }
  await sql`VACUUM ANALYZE`;
  await sql`CHECKPOINT`;
  await sql.end();
  return url;
}

type Result = { ms: number; walBytes: number; events: number; eventsDropped: number; jobs: number; kept: number };
type Mode = "whole, drop" | "whole, delete" | "events, drop" | "events, kept";
const LABELS: Record<Mode, string> = {
  "whole, drop": "whole retention, day partition dropped                        ",
  "whole, delete": "whole retention, --no-drop (events deleted with their jobs)   ",
  "events, drop": "the day's events alone, partition checked and dropped         ",
  "events, kept": "the day's events alone, partition kept (one live job), deleted",
};
/**
 * Whole retention (jobs, runs, events), or just the old day's events: its jobs and runs are
 * deleted before the measurement, then retention drops the partition, or — one of its jobs
 * made live again, so the day must be kept — deletes the other jobs' events from it by job id.
 */
async function measure(mode: Mode, i: number): Promise<Result> {
  const url = await freshLoadedDb(`retention_bench_${mode.replace(/\W+/g, "_")}_${i}`);
  const sql = connect(url, { max: 2 });
  if (mode.startsWith("events")) {
    await sql.begin(async (tx) => {
      await tx`SELECT set_config('jobscope.retention', 'on', true)`;
      if (mode === "events, kept") {
        await tx`SET LOCAL session_replication_role = replica`;
        await tx`UPDATE jobs SET state = 'queued', attempt = 0, state_version = 0, finished_at = NULL
                  WHERE id = (SELECT id FROM jobs WHERE finished_at < now() - interval '30 days' LIMIT 1)`;
      }
      await tx`DELETE FROM job_runs r WHERE r.finished_at < now() - interval '30 days' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.job_id AND j.finished_at IS NULL)`;
      await tx`DELETE FROM jobs WHERE finished_at < now() - interval '30 days'`;
    });
    await sql`VACUUM ANALYZE jobs, job_runs`;
    await sql`CHECKPOINT`;
  }
  const [a] = await sql<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
  const t0 = performance.now();
  const r = await runRetention(sql, { olderThanDays: 30, dropPartitions: mode !== "whole, delete" });
  const ms = performance.now() - t0;
  const [b] = await sql<{ bytes: string }[]>`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${a!.lsn}::pg_lsn)::bigint::text AS bytes`;
  await sql.end();
  return { ms, walBytes: Number(b!.bytes), events: r.events, eventsDropped: r.eventsDropped, jobs: r.jobs, kept: r.partitionsKept };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
try {
  console.log(`${N} old jobs (${4 * N} events in one day partition) and ${N} recent ones; retention --days 30; ${RUNS} runs each`);
  for (const mode of Object.keys(LABELS) as Mode[]) {
    const rs: Result[] = [];
    for (let i = 0; i < RUNS; i++) rs.push(await measure(mode, i));
    console.log(
      `${LABELS[mode]}: median ${median(rs.map((r) => r.ms)).toFixed(0)} ms, WAL ${(median(rs.map((r) => r.walBytes)) / 1048576).toFixed(1)} MiB` +
        `  [runs: ${rs.map((r) => `${r.ms.toFixed(0)} ms/${(r.walBytes / 1048576).toFixed(1)} MiB`).join(", ")}]` +
        ` (jobs ${rs[0]!.jobs}, events deleted ${rs[0]!.events}, events dropped ${rs[0]!.eventsDropped}, partitions kept ${rs[0]!.kept})`,
    );
  }
} finally {
  await server.stop();
  if (!process.env.DATABASE_URL) rmSync(dataDir, { recursive: true, force: true });
}
