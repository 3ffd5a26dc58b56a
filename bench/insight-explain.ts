// EXPLAIN (ANALYZE, BUFFERS) for the insight queries (lib/insight) on generated
// data: `npx tsx bench/insight-explain.ts [--jobs 1000000] [--span-days 7] [--keep]`.
//
// The jobs, runs and events come from bench/insight-generate.ts (issue 6's patterns);
// this adds what the insight pages read beyond them: registered workers,
// poison jobs (attempts lost twice and more), and refused transitions with a
// few drifts. Every query runs through the same library function the console
// calls, with auto_explain capturing its plan, so the plans are the real ones.
// Timings: median of 5 warm runs. Output: markdown on stdout (docs/insight.md).
import { parseArgs } from "node:util";
import postgres from "postgres";
import { connect, type Sql } from "../lib/db/client";
import { slownessContext } from "../lib/insight/baseline";
import {
  busiestErrors,
  driftStatus,
  latencyByType,
  listRejections,
  listWorkers,
  poisonSuspects,
  recentRejections,
  throughput,
  transitionCounts,
} from "../lib/insight/queries";
import { countByState, listJobs } from "../lib/jobs/queries";
import { parseJobFilters } from "../lib/jobs/filters";
import { benchServer, freshDb } from "./lib";
import { generateInsightData } from "./insight-generate";

const { values: args } = parseArgs({
  options: {
    jobs: { type: "string", default: "1000000" },
    "span-days": { type: "string", default: "7" },
    keep: { type: "boolean", default: false },
    "reuse-url": { type: "string" },
  },
});
const log = (s: string) => console.error(`[insight-bench] ${s}`);

async function extras(sql: Sql) {
  log("adding workers, poison jobs and rejections");
  await sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, last_seen_at, stopped_at)
    SELECT 'gen-worker-' || g, 'bench', 1000 + g, ARRAY['default', 'exports', 'media'], 8,
           now() - (CASE WHEN g = 7 THEN 600 ELSE 1 END) * interval '1 second', NULL
      FROM generate_series(0, 7) g ON CONFLICT DO NOTHING`;
  // Poison: 500 jobs whose three attempts each ended lease_expired, spread over the span; written
  // the way the generator writes (triggers off in a marked transaction), checks still apply.
  await sql.begin(async (tx) => {
    await tx`SELECT set_config('jobscope.write_path', 'on', true)`;
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`CREATE TEMP TABLE poison ON COMMIT DROP AS
      SELECT gen_random_uuid() AS id, g, now() - (g * 1200) * interval '1 second' AS created_at FROM generate_series(1, 500) g`;
    await tx`INSERT INTO jobs (id, tenant_id, type, queue, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at, finished_at)
      SELECT id, 'acme', 'poison.crash', 'default', 'dead', 3, 3, 9, created_at, '{}', created_at, created_at + interval '3 minutes', created_at + interval '3 minutes' FROM poison`;
    await tx`INSERT INTO job_runs (job_id, attempt, tenant_id, worker_id, claimed_at, started_at, finished_at, outcome, error_class)
      SELECT id, a, 'acme', 'gen-worker-' || ((g + a) % 8), created_at + (a - 1) * interval '1 minute', created_at + (a - 1) * interval '1 minute',
             created_at + a * interval '1 minute', 'lease_expired', 'LeaseExpired'
        FROM poison, generate_series(1, 3) a`;
    await tx`INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at)
      SELECT id, 'acme', e.event::job_event, e.f::job_state, e.t::job_state, e.k::actor_kind, 'gen', e.a, e.v, created_at + e.m * interval '1 minute'
        FROM poison, (VALUES ('submit', NULL, 'queued', 'api', 0, 0, 0),
                             ('claim', 'queued', 'claimed', 'worker', 1, 1, 0), ('start', 'claimed', 'running', 'worker', 1, 2, 0), ('reclaim', 'running', 'queued', 'supervisor', 1, 3, 1),
                             ('claim', 'queued', 'claimed', 'worker', 2, 4, 1), ('start', 'claimed', 'running', 'worker', 2, 5, 1), ('reclaim', 'running', 'queued', 'supervisor', 2, 6, 2),
                             ('claim', 'queued', 'claimed', 'worker', 3, 7, 2), ('start', 'claimed', 'running', 'worker', 3, 8, 2), ('abandon', 'running', 'dead', 'supervisor', 3, 9, 3)) AS e(event, f, t, k, a, v, m)`;
  });
  // 200,000 refusals over the span, 0.01% drift.
  await sql`
    INSERT INTO transition_rejections (job_id, tenant_id, event, kind, actor_kind, actor_id, reason, at)
    SELECT gen_random_uuid(), 'acme', (ARRAY['cancel', 'replay', 'resume', 'finish'])[1 + g % 4]::job_event,
           (CASE WHEN g % 10000 = 0 THEN 'drift' WHEN g % 3 = 0 THEN 'conflict' ELSE 'illegal' END)::rejection_kind,
           'operator', 'ops-' || (g % 50), 'generated refusal', now() - (g * 3) * interval '1 second'
      FROM generate_series(1, 200000) g`;
  await sql`ANALYZE`;
}

type Probe = { name: string; serves: string; run: (sql: Sql) => Promise<unknown> };

async function main() {
  let url = args["reuse-url"];
  let stop = async () => {};
  if (!url) {
    const server = await benchServer(".data/bench-insight-pg", log);
    stop = server.stop;
    url = await freshDb(server.adminUrl, "insight_bench", { jobscope: true });
    const sql = connect(url, { max: 2 });
    const t0 = Date.now();
    await generateInsightData(sql, { count: Number(args.jobs), spanDays: Number(args["span-days"]), log });
    await extras(sql);
    log(`data ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    await sql.end();
  }
  const plans: string[] = [];
  const sql = connect(url, { max: 1 });
  let sink: string[] | null = null;
  const explainSql = postgres(url, {
    max: 1,
    onnotice: (n) => sink?.push((n.message ?? "").replace(/^duration: [\d.]+ ms\s+plan:\n?/, "").trim()),
    transform: { column: { from: postgres.toCamel } },
  });
  const [counts] = await sql<{ jobs: number; runs: number; events: number; rejections: number }[]>`
    SELECT (SELECT count(*)::int FROM jobs) AS jobs, (SELECT count(*)::int FROM job_runs) AS runs,
           (SELECT count(*)::int FROM job_events) AS events, (SELECT count(*)::int FROM transition_rejections) AS rejections`;
  const [recent] = await sql<{ day: number }[]>`SELECT count(*)::int AS day FROM job_runs WHERE finished_at > now() - interval '24 hours'`;
  const { jobs, runs, events, rejections } = counts!;
  const day = recent!.day;
  const [sample] = await sql<{ id: string; type: string; queue: string; tenantId: string; priority: number; createdAt: Date }[]>`
    SELECT id, type, queue, tenant_id, priority, created_at FROM jobs WHERE type = 'export.tenant_data' AND state = 'succeeded'
     ORDER BY created_at DESC OFFSET 100 LIMIT 1`;

  const probes: Probe[] = [
    { name: "throughput 1h", serves: "job_runs_finished_idx", run: (s) => throughput(s, "1h") },
    { name: "throughput 24h", serves: "job_runs_finished_idx", run: (s) => throughput(s, "24h") },
    { name: "latency by type 1h", serves: "job_runs_finished_idx, jobs_pkey, job_events_job_version_cover_idx", run: (s) => latencyByType(s, "1h") },
    { name: "latency by type 24h", serves: "job_runs_finished_idx, jobs_pkey, job_events_job_version_cover_idx", run: (s) => latencyByType(s, "24h") },
    { name: "busiest errors 24h", serves: "job_runs_finished_idx, jobs_pkey", run: (s) => busiestErrors(s, "24h") },
    { name: "poison suspects (7 d)", serves: "job_runs_lease_lost_idx, jobs_pkey, job_runs_pkey, workers_pkey", run: (s) => poisonSuspects(s) },
    { name: "recent rejections", serves: "transition_rejections_pkey", run: (s) => recentRejections(s) },
    { name: "drift status", serves: "transition_rejections_kind_idx / _kind_id_idx", run: (s) => driftStatus(s) },
    { name: "rejections page, kind=conflict, page 3", serves: "transition_rejections_kind_id_idx", run: async (s) => {
      const p1 = await listRejections(s, { kind: "conflict" });
      const p2 = await listRejections(s, { kind: "conflict", after: p1.next! });
      return listRejections(s, { kind: "conflict", after: p2.next! });
    } },
    { name: "rejections page, actor", serves: "transition_rejections_actor_id_idx", run: (s) => listRejections(s, { actor: "ops-7" }) },
    { name: "workers (24 h counts)", serves: "workers_last_seen_idx / seq scan of workers, job_runs_worker_idx, jobs_state_created_idx", run: (s) => listWorkers(s) },
    { name: "transition counts 1h", serves: "job_events_at_idx", run: (s) => transitionCounts(s, "1h") },
    { name: "transition counts 24h", serves: "job_events_at_idx", run: (s) => transitionCounts(s, "24h") },
    { name: "jobs list, poison filter", serves: "job_runs_lease_lost_job_idx, jobs_pkey", run: (s) => listJobs(s, parseJobFilters({ poison: "1" })) },
    { name: "jobs list first page (with lease losses)", serves: "jobs_created_idx, job_runs_pkey", run: (s) => listJobs(s, parseJobFilters({})) },
    { name: "counts by state (capped)", serves: "jobs_state_created_idx", run: (s) => countByState(s) },
    { name: "why-slow context (export.tenant_data, staff)", serves: "jobs_type_created_idx, jobs_tenant_type_created_idx, jobs_queue_created_idx, job_runs_pkey, job_events_job_version_cover_idx", run: (s) => slownessContext(s, sample!, { tenantOnly: false }) },
  ];

  const out: string[] = [];
  out.push(`Data: ${jobs.toLocaleString("en-US")} jobs, ${runs.toLocaleString("en-US")} runs (${day.toLocaleString("en-US")} ended in the last 24 h), ${events.toLocaleString("en-US")} events, ${rejections.toLocaleString("en-US")} rejections.\n`);
  out.push("| query | median ms (5 warm runs) | served by |", "|---|---:|---|");
  for (const p of probes) {
    await p.run(sql); // warm
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await p.run(sql);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    out.push(`| ${p.name} | ${times[2]!.toFixed(1)} | ${p.serves} |`);
    log(`${p.name}: ${times[2]!.toFixed(1)} ms`);
    // The plan of each statement the function runs, captured by auto_explain.
    const notices: string[] = [];
    await explainSql.begin(async (tx) => {
      await tx`LOAD 'auto_explain'`;
      await tx`SET LOCAL auto_explain.log_min_duration = 0`;
      await tx`SET LOCAL auto_explain.log_analyze = on`;
      await tx`SET LOCAL auto_explain.log_buffers = on`;
      await tx`SET LOCAL auto_explain.log_timing = on`;
      await tx`SET LOCAL auto_explain.log_level = notice`;
      await tx`SET LOCAL client_min_messages = notice`;
      sink = notices;
      try {
        await p.run(tx as unknown as Sql);
      } finally {
        sink = null;
      }
    });
    plans.push(`#### ${p.name}\n\n\`\`\`\n${notices.filter((n) => !/LOAD|SET LOCAL|set_config/.test(n)).join("\n\n")}\n\`\`\``);
  }
  console.log(out.join("\n"));
  console.log("\n### Plans\n");
  console.log(plans.join("\n\n"));
  await sql.end();
  await explainSql.end();
  if (!args.keep) await stop();
  else log(`kept: ${url}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
