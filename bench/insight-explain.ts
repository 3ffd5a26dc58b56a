// EXPLAIN (ANALYZE, BUFFERS) for the insight queries (lib/insight) and the integrity check's
// window on generated data: `npx tsx bench/insight-explain.ts [--jobs 1000000] [--span-days 7]
// [--keep] [--generate-only] [--reuse-url URL]`.
//
// The jobs and their histories come from bench/insight-generate.ts (bench/generate.ts's
// patterns, in the storage of drizzle/0012); this adds what the insight pages read beyond them: registered workers
// with their counters, poison jobs (attempts lost three times), and refused transitions with a
// few drifts. Every query runs through the same library function the console calls, with
// auto_explain capturing its plan, so the plans are the real ones. Timings: median of 5 warm
// runs. Output: markdown on stdout (docs/insight.md). The console's list reads
// (lib/jobs/queries.ts) are measured by bench/console.ts.
import { parseArgs } from "node:util";
import { closeDb, connect, type Db } from "../lib/db/client";
import { explainContext } from "../lib/insight/context";
import { getJobDetail } from "../lib/jobs/queries";
import {
  busiestErrors,
  driftStatus,
  latencyByType,
  latencySampleWindow,
  listRejections,
  listWorkers,
  poisonSuspects,
  recentRejections,
  throughput,
  transitionCounts,
} from "../lib/insight/queries";
import type { WindowKey } from "../lib/insight/windows";
import { checkWindow } from "../lib/integrity/check";
import { benchServer, freshDb } from "./lib";
import { generateInsightData } from "./insight-generate";
import { uuidv7Expr } from "../lib/jobs/ids";
import { withDirectWrites } from "../lib/jobs/direct-write";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values: args } = parseArgs({
  options: {
    jobs: { type: "string", default: "1000000" },
    "span-days": { type: "string", default: "7" },
    keep: { type: "boolean", default: false },
    "reuse-url": { type: "string" },
    "generate-only": { type: "boolean", default: false },
  },
});
const log = (s: string) => console.error(`[insight-bench] ${s}`);

async function extras(db: Db) {
  log("adding workers, poison jobs and rejections");
  // The workers' own counters, as their heartbeats write them.
  await execute(
    db,
    sql`
    INSERT INTO workers (id, host, pid, queues, concurrency, last_seen_at, stopped_at, succeeded, failed)
    SELECT 'gen-worker-' || g, 'bench', 1000 + g, ARRAY['default', 'exports', 'media'], 8,
           now() - (CASE WHEN g = 7 THEN 600 ELSE 1 END) * interval '1 second', NULL, 20000 + g, 900 + g
      FROM generate_series(0, 7) g ON CONFLICT DO NOTHING`,
  );
  // Poison: 500 jobs whose three attempts each ended lease_expired (two reclaims, then the
  // supervisor gave up), spread over the span; written the way the generator writes.
  await withDirectWrites(db, async (tx) => {
    await execute(tx, sql`SET LOCAL session_replication_role = replica`);
    await execute(
      tx,
      sql`CREATE TEMP TABLE poison ON COMMIT DROP AS
      SELECT ${sql.raw(uuidv7Expr("now() - (g * 1200) * interval '1 second'"))} AS id, g, now() - (g * 1200) * interval '1 second' AS created_at
        FROM generate_series(1, 500) g`,
    );
    await execute(
      tx,
      sql`INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, submitted_by_kind, submitted_by, created_at, not_before)
      SELECT id, 'acme', 'poison.crash', 'default', 0, 3, '{}', 'api', 'gen-api', created_at, created_at FROM poison`,
    );
    await execute(
      tx,
      sql`INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, started_at, finished_at, outcome, max_attempts, error_class, error_message)
      SELECT id, a, 'acme', 'gen-worker-' || ((g + a) % 8), created_at + (a - 1) * interval '1 minute', 3 * a - 2, created_at + (a - 1) * interval '1 minute',
             created_at + a * interval '1 minute', 'lease_expired', 3, 'LeaseExpired', 'no heartbeat for more than 30000 ms'
        FROM poison, generate_series(1, 3) a ORDER BY 8`,
    );
    await execute(
      tx,
      sql`INSERT INTO job_log (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, max_attempts)
      SELECT id, 'acme', e.event::job_event, 'running', e.t::job_state, 'supervisor', 'gen-sup', e.a, 3 * e.a, created_at + e.a * interval '1 minute', 3
        FROM poison, (VALUES ('reclaim', 'queued', 1), ('reclaim', 'queued', 2), ('abandon', 'dead', 3)) AS e(event, t, a) ORDER BY 10`,
    );
  });
  // 200,000 refusals over the span, 0.01% drift.
  await execute(
    db,
    sql`
    INSERT INTO transition_rejections (job_id, tenant_id, event, kind, actor_kind, actor_id, reason, at)
    SELECT gen_random_uuid(), 'acme', (ARRAY['cancel', 'replay', 'resume', 'finish'])[1 + g % 4]::job_event,
           (CASE WHEN g % 10000 = 0 THEN 'drift' WHEN g % 3 = 0 THEN 'conflict' ELSE 'illegal' END)::rejection_kind,
           'operator', 'ops-' || (g % 50), 'generated refusal', now() - (g * 3) * interval '1 second'
      FROM generate_series(1, 200000) g`,
  );
  await execute(db, sql`ANALYZE`);
}

type Probe = { name: string; serves: string; run: (db: Db) => Promise<unknown> };

/**
 * Drop the nodes the executor never ran (job_log's pruned partitions) with their details, and cut
 * long parameter lists (a sample's 200 ids): the plans stay readable.
 */
function readable(plan: string): string {
  const out: string[] = [];
  let skipDeeperThan = -1;
  for (const raw of plan.split("\n")) {
    const line = raw.startsWith("Query Parameters:") && raw.length > 240 ? `${raw.slice(0, 240)}…` : raw;
    const indent = line.length - line.trimStart().length;
    if (skipDeeperThan >= 0 && indent > skipDeeperThan) continue;
    skipDeeperThan = -1;
    if (/\(never executed\)/.test(line)) {
      skipDeeperThan = indent;
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

async function main() {
  let url = args["reuse-url"];
  let stop = async () => {};
  if (!url) {
    const server = await benchServer(".data/bench-insight-pg", log);
    stop = server.stop;
    url = await freshDb(server.adminUrl, "insight_bench", { jobscope: true });
    const db = connect(url, { max: 2 });
    const t0 = Date.now();
    await generateInsightData(db, { count: Number(args.jobs), spanDays: Number(args["span-days"]), log });
    await extras(db);
    log(`data ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    await closeDb(db);
    if (args["generate-only"]) {
      log(`generated: ${url}`);
      return;
    }
  }
  const plans: string[] = [];
  const db = connect(url, { max: 1 });
  let sink: string[] | null = null;
  const explainDb = connect(url, {
    max: 1,
    onnotice: (n) => sink?.push((n.message ?? "").replace(/^duration: [\d.]+ ms\s+plan:\n?/, "").trim()),
  });
  // The data's own present: generated data ends two minutes before it was generated (a reused
  // database may be older), and every window is read back from there.
  const [clock] = await execute<{ now: Date }>(db, sql`SELECT max(finished_at) + interval '2 minutes' AS now FROM job_attempts`);
  const now = clock!.now;
  const [counts] = await execute<{ jobs: number; live: number; attempts: number; log: number; rejections: number; day: number; hour: number }>(
    db,
    sql`
    SELECT (SELECT count(*)::int FROM job_catalog) AS jobs, (SELECT count(*)::int FROM jobs_live) AS live,
           (SELECT count(*)::int FROM job_attempts) AS attempts, (SELECT count(*)::int FROM job_log) AS log,
           (SELECT count(*)::int FROM transition_rejections) AS rejections,
           (SELECT count(*)::int FROM job_attempts WHERE finished_at > ${now}::timestamptz - interval '24 hours') AS day,
           (SELECT count(*)::int FROM job_attempts WHERE finished_at > ${now}::timestamptz - interval '1 hour') AS hour`,
  );
  const c = counts!;
  const [sample] = await execute<{ id: string; type: string; queue: string; tenantId: string; priority: number; createdAt: Date }>(
    db,
    sql`
    SELECT c.id, c.type, c.queue, c.tenant_id, c.priority, c.created_at FROM job_catalog c
     WHERE c.type = 'export.tenant_data' AND c.created_at < ${now}::timestamptz - interval '1 hour'
       AND EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = c.id AND a.end_to = 'succeeded')
     ORDER BY c.created_at DESC NULLS LAST OFFSET 100 LIMIT 1`,
  );
  const windows = await Promise.all((["1h", "24h"] as const).map((w) => latencySampleWindow(db, w, now)));

  /** A query over a window up to `now`: one probe per window, each served by the same indexes. */
  const perWindow = (name: string, serves: string, keys: WindowKey[], query: (db: Db, w: WindowKey, now: Date) => Promise<unknown>): Probe[] =>
    keys.map((w) => ({ name: `${name} ${w}`, serves, run: (s) => query(s, w, now) }));
  const probes: Probe[] = [
    ...perWindow("throughput", "job_attempts_finished_brin", ["1h", "24h"], throughput),
    ...perWindow(
      "latency by type",
      "job_attempts_finished_brin (sample window), job_catalog_pkey, job_log_job_version_idx, job_attempts_pkey",
      ["1h", "24h"],
      latencyByType,
    ),
    ...perWindow("busiest errors", "job_attempts_finished_brin", ["1h", "24h"], busiestErrors),
    {
      name: "poison suspects (7 d)",
      serves:
        "job_attempts_lease_lost_idx, `jobs` by id (job_catalog_pkey, jobs_live_pkey, job_attempts_pkey, job_log_job_version_idx), workers_pkey",
      run: (s) => poisonSuspects(s, now),
    },
    { name: "recent rejections", serves: "transition_rejections_pkey", run: (s) => recentRejections(s) },
    { name: "drift status", serves: "transition_rejections_kind_idx / _kind_id_idx", run: (s) => driftStatus(s) },
    {
      name: "rejections page, kind=conflict, page 3",
      serves: "transition_rejections_kind_id_idx",
      run: async (s) => {
        const p1 = await listRejections(s, { kind: "conflict" });
        const p2 = await listRejections(s, { kind: "conflict", after: p1.next! });
        return listRejections(s, { kind: "conflict", after: p2.next! });
      },
    },
    { name: "rejections page, actor", serves: "transition_rejections_actor_id_idx", run: (s) => listRejections(s, { actor: "ops-7" }) },
    {
      name: "workers",
      serves: "workers (seq scan: one row per worker process), job_attempts_worker_trouble_idx, jobs_live_lease_idx, jobs_live_waiting_idx",
      run: (s) => listWorkers(s, now),
    },
    ...perWindow(
      "transition counts",
      "job_catalog_created_idx, job_log_at_brin (1-2 day partitions), job_attempts_finished_brin, jobs_live_lease_idx, jobs_live_waiting_idx",
      ["1h", "6h", "24h"],
      transitionCounts,
    ),
    {
      name: "why-slow context (export.tenant_data, staff)",
      serves:
        "job_catalog_type_created_idx, job_catalog_tenant_type_created_idx, job_catalog_queue_created_idx, jobs_live_pkey, job_attempts_pkey, job_log_job_version_idx, queue_events_queue_at_idx, workers, `job_events` by id",
      run: async (s) => {
        const detail = await getJobDetail(s, sample!.id);
        return explainContext(s, detail!, { tenantOnly: false, asOf: now.getTime() });
      },
    },
    {
      name: "integrity check, a 5-minute window",
      serves: "job_catalog_created_idx, job_log_at_brin, job_attempts_finished_brin; then the `jobs`, `job_events`, `job_runs` views by id",
      run: (s) => checkWindow(s, new Date(now.getTime() - 7 * 60_000), new Date(now.getTime() - 2 * 60_000)),
    },
  ];

  const out: string[] = [];
  const n = (x: number) => x.toLocaleString("en-US");
  out.push(
    `Data: ${n(c.jobs)} jobs (${n(c.live)} live), ${n(c.attempts)} ended attempts (${n(c.day)} in the last 24 h, ${n(c.hour)} in the last hour), ` +
      `${n(c.log)} job_log rows, ${n(c.rejections)} rejections. The latency sample's window: ` +
      windows
        .map((w, i) => `${["1h", "24h"][i]}: the last ${Math.round((now.getTime() - w.from.getTime()) / 60_000)} min (${w.probes} windows tried)`)
        .join("; ") +
      ".\n",
  );
  out.push("| query | median ms (5 warm runs) | served by |", "|---|---:|---|");
  for (const p of probes) {
    await p.run(db); // warm
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await p.run(db);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    out.push(`| ${p.name} | ${times[2]!.toFixed(1)} | ${p.serves} |`);
    log(`${p.name}: ${times[2]!.toFixed(1)} ms`);
    // The plan of each statement the function runs, captured by auto_explain.
    const notices: string[] = [];
    // A statement's plan is logged when its portal closes: the last one's at COMMIT, so the sink stays open until then.
    sink = notices;
    await explainDb
      .transaction(async (tx) => {
        await execute(tx, sql`LOAD 'auto_explain'`);
        await execute(tx, sql`SET LOCAL auto_explain.log_min_duration = 0`);
        await execute(tx, sql`SET LOCAL auto_explain.log_analyze = on`);
        await execute(tx, sql`SET LOCAL auto_explain.log_buffers = on`);
        await execute(tx, sql`SET LOCAL auto_explain.log_timing = on`);
        await execute(tx, sql`SET LOCAL auto_explain.log_level = notice`);
        await execute(tx, sql`SET LOCAL client_min_messages = notice`);
        await p.run(tx);
      })
      .finally(() => {
        sink = null;
      });
    plans.push(
      `#### ${p.name}\n\n\`\`\`\n${notices
        .filter((x) => !/LOAD|SET LOCAL|set_config/.test(x))
        .map(readable)
        .join("\n\n")}\n\`\`\``,
    );
  }
  console.log(out.join("\n"));
  console.log("\n### Plans\n");
  console.log(plans.join("\n\n"));
  await closeDb(db);
  await closeDb(explainDb);
  if (!args.keep) await stop();
  else log(`kept: ${url}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
