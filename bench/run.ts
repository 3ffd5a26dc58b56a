// `npm run bench [-- --profile smoke|quick|full] [--only throughput,pickup,fairness,load,scale,console,supervisor,factors]`
//
// One command, one PostgreSQL (embedded in .data/bench-pg, or the server at
// DATABASE_URL given as an admin URL), every system side by side in one run.
// Every run prints its tables and writes them to .data/bench-results-<profile>.md (and .json); a
// full run without --only also rewrites the results block of docs/benchmarks.md.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { format, resolveConfig } from "prettier";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { closeDb, connect } from "../lib/db/client";
import { HEARTBEAT_STATES } from "../lib/fsm/table";
import { createSupervisor } from "../lib/supervisor/supervisor";
import { measureConsole, measureConsoleLib, signIn, startConsole, WARMUP, type Timing } from "./console";
import {
  burnGraphile,
  burnJobs,
  burnJobscope,
  burnPgBoss,
  burnRoundsAlone,
  pickupGraphile,
  pickupJobscope,
  pickupPgBoss,
  type Burn,
} from "./engines";
import { drizzleOverhead, runFactors, type Factor } from "./factors";
import { checkSample, generate, prefillJobscope } from "./generate";
import { benchServer, checkpoint, dropDb, fmt, freshDb, mb, pct, sizes, sleep, triggersOff, waitUntil } from "./lib";
import { lanesFor } from "../lib/db/lanes";
import { fairnessRun, type FairnessRun } from "./fairness";
import { burnSkeleton } from "./skeleton";
import { formatRatio, pairs, type Contender, type Ratio } from "./pairs";
import { fixedRate, underLoad, type LoadResult } from "./load";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

export const PROFILES = {
  smoke: {
    batchedJobs: 2000,
    singleJobs: 600,
    factorJobs: 2000,
    pairs: 1,
    pgboss: false,
    pickups: 0,
    fairnessJobs: 0,
    loadSeconds: 0,
    consoleJobs: 0,
    samples: 0,
    scaleJobs: 0,
    supervisor: false,
  },
  quick: {
    // Batched burns of 100,000 jobs in every run on this machine (more only where a warm-up would
    // finish that in under MIN_BURN_SECONDS), rather than sized from a warm-up: below about 100,000 rows
    // PostgreSQL plans graphile-worker's claim with a sequential scan of its jobs table (a hash join;
    // 18–20 µs of PostgreSQL CPU per job against 11–12 through its primary key), so a run's count
    // chose its regime (docs/benchmarks.md). At 100,000 it takes the primary key: its faster one.
    batchedJobs: 100_000,
    singleJobs: 3000,
    // Each factor is six burns (three pairs with the final design): smaller ones, no peer's plan to mind.
    factorJobs: 20_000,
    pairs: 5,
    pgboss: true,
    pickups: 50,
    fairnessJobs: 10_000,
    loadSeconds: 10,
    consoleJobs: 100_000,
    samples: 20,
    scaleJobs: 5000,
    supervisor: true,
  },
  full: {
    batchedJobs: 100_000,
    singleJobs: 4000,
    factorJobs: 40_000,
    pairs: 5,
    pgboss: true,
    pickups: 300,
    fairnessJobs: 10_000,
    loadSeconds: 30,
    consoleJobs: Number(process.env.BENCH_CONSOLE_JOBS ?? 10_000_000),
    samples: 100,
    scaleJobs: 6000,
    supervisor: true,
  },
} as const;
export type Profile = keyof typeof PROFILES;
const CONCURRENCY = 24;

export type Results = {
  profile: Profile;
  startedAt: string;
  machine: string;
  /** The 1-minute load average when the run started and when it ended: a shared machine drifts. */
  loadAverage: [number, number];
  postgres: string;
  throughput: Burn[];
  /** Each ratio in the same run: the median over alternating pairs, with the range. */
  ratios: Record<string, Ratio>;
  pickup: { system: string; p50: number; p99: number; n: number }[];
  fairness: FairnessRun[];
  load: LoadResult[];
  scaling: { processes: number; jobsPerSec: number; seconds: number }[];
  supervisor: { rows: number; tickP50: number; tickP95: number; plan: string[] }[];
  sizes: { table: string; rows: number; tableBytes: number; indexBytes: number; perMillion: number }[];
  factors: Factor[];
  drizzle: { drizzleUs: number; directUs: number } | null;
  console: Timing[];
  /** The same requests before the load starts. */
  consoleIdle: Timing[];
  consoleNote: string;
  generated: { jobs: number; seconds: number; integrityProblems: number } | null;
  minutes: number;
};

const log = (s: string) => console.log(`[bench] ${s}`);
const DOC = "docs/benchmarks.md";
const BEGIN = "<!-- bench:results -->";
const END = "<!-- /bench:results -->";

export async function runBench(profile: Profile, only?: Set<string>): Promise<Results> {
  const p = PROFILES[profile];
  const want = (k: string) => !only || only.has(k);
  const t0 = performance.now();
  // Its own data dir per profile run, so the CI smoke never shares a server with a full run.
  const server = await benchServer(profile === "full" ? ".data/bench-pg" : `.data/bench-pg-${profile}-${process.pid}`, log);
  const r: Results = {
    profile,
    startedAt: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}`,
    loadAverage: [loadavg()[0]!, NaN],
    postgres: "",
    throughput: [],
    ratios: {},
    pickup: [],
    fairness: [],
    load: [],
    scaling: [],
    supervisor: [],
    sizes: [],
    console: [],
    consoleIdle: [],
    consoleNote: "",
    generated: null,
    minutes: 0,
    factors: [],
    drizzle: null,
  };
  try {
    const admin = connect(server.adminUrl, { max: 1 });
    r.postgres = (await execute<{ v: string }>(admin, sql`SELECT version() AS v`))[0]!.v.split(" on ")[0]!;
    await closeDb(admin);

    if (want("throughput")) {
      const burn = async (label: string, f: () => Promise<Burn>) => {
        log(`burn-down: ${label}…`);
        const b = await f();
        log(
          `  ${fmt(b.jobsPerSec)} jobs/s, ${fmt(b.walPerJob)} WAL bytes/job, ${fmt(b.heapRowsPerJob ?? NaN, 1)} rows and ${fmt(b.btreeEntriesPerJob ?? NaN, 1)} index entries/job, CPU µs/job PostgreSQL ${fmt(b.pgCpuUsPerJob ?? NaN)} + node ${fmt(b.nodeCpuUsPerJob)}`,
        );
        return b;
      };
      let db = 0;
      // Each burn on a fresh database of its own, the last burn's dropped (autovacuum would work
      // through it during this one, and its WAL is counted server-wide), then a checkpoint: this
      // burn's pages are written after the redo point, and its WAL (well under max_wal_size) starts
      // no other, so no burn pays the full-page writes of a checkpoint another burn set off
      // (docs/benchmarks.md, "How each figure is measured").
      const fresh = async (jobscope: boolean) => {
        if (db > 0) await dropDb(server.adminUrl, `bench_burn_${db - 1}`);
        const url = await freshDb(server.adminUrl, `bench_burn_${db++}`, { jobscope });
        await checkpoint(server.adminUrl);
        return url;
      };
      const jobscopeBurn = (batch: boolean, label: string, opts: { triggersOff?: boolean } = {}): Contender => ({
        label,
        run: async (jobs) => {
          const url = await fresh(true);
          return burnJobscope(opts.triggersOff ? triggersOff(url) : url, jobs, { concurrency: CONCURRENCY, batch, label });
        },
      });
      const graphileBurn = (batch: boolean, label: string): Contender => ({
        label,
        run: async (jobs) => burnGraphile(await fresh(false), jobs, { concurrency: CONCURRENCY, batch, label }),
      });
      // A contender whose burn starts from a queue prefilled with Jobscope's jobs.
      const prefilled = (label: string, burnOn: (url: string, jobs: number) => Promise<Burn>): Contender => ({
        label,
        run: async (jobs) => {
          const url = await fresh(true);
          await prefillJobscope(url, burnJobs(jobs).all);
          return burnOn(url, jobs);
        },
      });
      const skeletonBurn = (label: string, opts?: { perStatement: number; pipelines: number; connections?: number }) =>
        prefilled(label, (url, jobs) => burnSkeleton(url, jobs, label, opts));
      const n = p.batchedJobs;
      const batched = [jobscopeBurn(true, "Jobscope, batched"), graphileBurn(true, "graphile-worker 0.17.3, local queue + batched completion")];
      if (p.pairs > 1) {
        batched.push(skeletonBurn("skeleton: the tables alone, two claims in flight"));
        // The product's round statement without its runtime: its gap to the skeleton is what the guards
        // and the answer cost, its gap to the product what the runtime costs.
        batched.push(
          prefilled("Jobscope's rounds alone: every guard, no handlers (not a product)", (url, jobs) =>
            burnRoundsAlone(url, jobs, "Jobscope's rounds alone"),
          ),
        );
      }
      const b = await pairs(batched, n, p.pairs, burn, log);
      r.throughput.push(...b.medians);
      r.ratios["batched: Jobscope / graphile-worker"] = b.ratio(0)!;
      const skeleton = b.ratio(2);
      if (skeleton) r.ratios["batched: skeleton (the tables alone) / graphile-worker"] = skeleton;
      const alone = b.ratio(3);
      if (alone) r.ratios["batched: Jobscope's rounds alone (no runtime) / graphile-worker"] = alone;
      if (p.pgboss) {
        const pb = await burn("pg-boss", async () =>
          burnPgBoss(await fresh(false), n, { concurrency: CONCURRENCY, batchSize: 20, label: "pg-boss 10.4.2, batchSize 20 × 24 workers" }),
        );
        r.throughput.push(pb);
        r.ratios["batched: Jobscope / pg-boss (one burn each)"] = { median: b.medians[0]!.jobsPerSec / pb.jobsPerSec, min: NaN, max: NaN, n: 1 };
      }
      if (p.singleJobs > 0) {
        const m = p.singleJobs;
        const single = [jobscopeBurn(false, "Jobscope, one job per statement")];
        if (profile !== "smoke") single.push(graphileBurn(false, "graphile-worker 0.17.3, defaults (unbatched)"));
        // The same tables' ceiling one job at a time: one statement per job from as many pipelines as the
        // runtime's slots, pipelined on as many connections as an unbatched worker's (lib/db/lanes.ts).
        const lanes = lanesFor(CONCURRENCY);
        if (p.pairs > 1)
          single.push(
            skeletonBurn(`skeleton: the tables alone, one job per statement, ${CONCURRENCY} in flight on ${lanes} connections`, {
              perStatement: 1,
              pipelines: CONCURRENCY,
              connections: lanes,
            }),
          );
        // The product's own statements with the table triggers off (the direct-write guard, the
        // tenant check): not a product, but what those cost one at a time, on the same run's scale.
        if (p.pairs > 1) single.push(jobscopeBurn(false, "Jobscope, one job per statement, triggers off (not a product)", { triggersOff: true }));
        const s = await pairs(single, m, p.pairs, burn, log, single.length > 1 ? 1 : 0);
        r.throughput.push(...s.medians);
        const unbatched = s.ratio(0);
        if (unbatched) r.ratios["one-at-a-time: Jobscope / graphile-worker"] = unbatched;
        const floor = s.ratio(2);
        if (floor) r.ratios["one-at-a-time: skeleton (the tables alone) / graphile-worker"] = floor;
        const bare = s.ratio(3);
        if (bare) r.ratios["one-at-a-time: Jobscope with its triggers off / graphile-worker"] = bare;
        if (profile === "smoke") return r;
      }
    }

    // One factor at a time against the final design, in alternating pairs (full profile, or --only factors).
    if ((profile === "full" && !only) || only?.has("factors")) {
      r.factors = await runFactors(server.adminUrl, p.factorJobs, log);
      r.drizzle = await drizzleOverhead(server.adminUrl, 2000);
      log(
        `drizzle on the hot path: ${fmt(r.drizzle.drizzleUs, 1)} µs of node CPU per claim statement through drizzle, ${fmt(r.drizzle.directUs, 1)} µs through postgres.js directly`,
      );
    }

    if (want("pickup") && p.pickups > 0) {
      for (const [system, f] of [
        ["Jobscope (LISTEN/NOTIFY)", async () => pickupJobscope(await freshDb(server.adminUrl, "bench_pick_js", { jobscope: true }), p.pickups)],
        ["graphile-worker (LISTEN/NOTIFY)", async () => pickupGraphile(await freshDb(server.adminUrl, "bench_pick_gw"), p.pickups)],
        ["pg-boss (polling, 0.5 s minimum)", async () => pickupPgBoss(await freshDb(server.adminUrl, "bench_pick_pb"), Math.min(p.pickups, 40))],
      ] as const) {
        log(`idle pickup: ${system}…`);
        const xs = await f();
        r.pickup.push({ system, p50: pct(xs, 50), p99: pct(xs, 99), n: xs.length });
        log(`  p50 ${fmt(pct(xs, 50), 1)} ms, p99 ${fmt(pct(xs, 99), 1)} ms`);
      }
    }

    if (want("fairness") && p.fairnessJobs > 0) {
      for (const fair of [false, true]) {
        log(`fairness: tenant A submits ${fmt(p.fairnessJobs)} jobs, then tenant B 10; queue ${fair ? "fair" : "not fair"}…`);
        const f = await fairnessRun(await freshDb(server.adminUrl, `bench_fair_${fair ? "on" : "off"}`, { jobscope: true }), {
          fair,
          aJobs: p.fairnessJobs,
          bJobs: 10,
          concurrency: CONCURRENCY,
        });
        log(
          `  B waited p50 ${fmt(f.bWaitP50, 1)} / p99 ${fmt(f.bWaitP99, 1)} ms; B's last job was start number ${f.bLastStartRank}; ${fmt(f.jobsPerSec)} jobs/s`,
        );
        r.fairness.push(f);
      }
    }

    const peak = r.throughput[0]?.jobsPerSec ?? 400;
    // The fixed-rate load asks for half the batched peak; the console is measured under that rate too, with 10% of the load's attempts failing.
    const rate = Math.max(20, Math.round(peak / 2));
    const consoleLoad = { rate, seconds: 600, failRate: 0.1 };
    if (want("load") && p.loadSeconds > 0) {
      const url = await freshDb(server.adminUrl, "bench_load", { jobscope: true });
      // A fresh database has no statistics yet: a short warm-up (not counted), then ANALYZE, so the
      // figures are the steady state and not the planner's first guesses.
      await fixedRate(url, { rate, seconds: 3, failRate: 0, queue: "load-warmup" });
      const analyze = connect(url, { max: 1 });
      await execute(analyze, sql`ANALYZE`);
      await closeDb(analyze);
      for (const failRate of [0, 0.1]) {
        log(`fixed-rate load: ${rate} jobs/s for ${p.loadSeconds} s, ${failRate * 100}% of attempts fail…`);
        const l = await fixedRate(url, { rate, seconds: p.loadSeconds, failRate, queue: `load-${failRate}` });
        log(`  pickup p50 ${fmt(l.pickupP50, 1)} / p99 ${fmt(l.pickupP99, 1)} ms; lost ${l.lost}, double-finalized ${l.doubleFinalized}`);
        r.load.push(l);
      }
    }

    if (want("scale") && p.scaleJobs > 0) {
      const url = await freshDb(server.adminUrl, "bench_scale", { jobscope: true });
      for (const procs of [1, 2, 4]) {
        const queue = `scale-${procs}`;
        log(`scaling: ${procs} worker process(es), ${CONCURRENCY / procs} concurrency each…`);
        const s = await scaleRun(url, queue, procs, p.scaleJobs);
        r.scaling.push(s);
        log(`  ${fmt(s.jobsPerSec)} jobs/s`);
      }
    }

    if ((want("console") || want("supervisor")) && (p.consoleJobs > 0 || p.supervisor)) {
      // The supervisor's scan on a small table first, then the same scan after the big generation.
      try {
        const url = await freshDb(server.adminUrl, "bench_console", { jobscope: true });
        const db = connect(url, { max: 4 });
        if (p.supervisor) {
          await generate(db, { count: 10_000, log });
          r.supervisor.push(await supervisorScan(db));
        }
        const target = Math.max(p.consoleJobs, 10_000);
        const g0 = performance.now();
        if (target > 10_000) await generate(db, { count: target - 10_000, log });
        const problems = await checkSample(db, 200);
        r.generated = { jobs: target, seconds: (performance.now() - g0) / 1000, integrityProblems: problems.length };
        if (problems.length) log(`generated histories that do not replay: ${problems.slice(0, 3).join("; ")}`);
        if (p.supervisor) r.supervisor.push(await supervisorScan(db));
        const sz = await sizes(url, ["public"]);
        r.sizes = sz
          .filter((s) => ["public.job_catalog", "public.jobs_live", "public.job_attempts", "public.job_log"].includes(s.table))
          .map((s) => ({
            table: s.table,
            rows: Number(s.rows),
            tableBytes: Number(s.tableBytes),
            indexBytes: Number(s.indexBytes),
            perMillion: ((Number(s.tableBytes) + Number(s.indexBytes)) / target) * 1e6,
          }));
        await closeDb(db);

        if (want("console") && p.samples > 0) {
          log(`console: next start against ${fmt(target)} jobs, under fixed-rate load…`);
          const web = await startConsole(url, log);
          try {
            // The staff's view (every tenant) and a tenant's (its own jobs, under RLS).
            const viewers = [
              { who: "operator" as const, cookie: await signIn(web.base, "operator") },
              { who: "acme" as const, cookie: await signIn(web.base, "acme") },
            ];
            const measure = async (samples: number) => {
              const out: Timing[] = [];
              // One request at a time, as one person at a browser.
              for (const v of viewers) out.push(...(await measureConsole(url, web.base, v.cookie, samples, v.who)));
              return out;
            };
            // The same requests on the idle database first: what the console costs without the machine's two cores busy.
            r.consoleIdle = await measure(Math.min(p.samples, 50));
            r.console = await underLoad(url, { ...consoleLoad, queue: "console-load" }, () => measure(p.samples));
            r.consoleNote =
              'signed in over HTTP (better-auth session cookie) as the demo operator, and as the demo tenant acme\'s user for the rows named "tenant acme"; the web process connects as jobscope_app under RLS';
          } catch (e) {
            r.consoleNote = `over HTTP: failed (${e instanceof Error ? e.message.slice(0, 200) : String(e)}); measured through the library functions the routes call instead, under the same load`;
            log(r.consoleNote);
            r.console = await underLoad(url, { ...consoleLoad, queue: "console-load-lib" }, () => measureConsoleLib(url, p.samples));
          } finally {
            await web.stop();
          }
        }
      } catch (e) {
        // Keep what the earlier sections measured.
        r.consoleNote = `console/supervisor section failed: ${e instanceof Error ? e.message : String(e)}`;
        log(r.consoleNote);
      }
    }
  } finally {
    await server.stop();
  }
  r.minutes = (performance.now() - t0) / 60_000;
  r.loadAverage[1] = loadavg()[0]!;
  return r;
}

async function scaleRun(url: string, queue: string, procs: number, n: number) {
  const children: ChildProcess[] = [];
  const db = connect(url, { max: 1 });
  const remaining = async () => Number((await execute(db, sql`SELECT count(*)::int AS c FROM jobs_live WHERE queue = ${queue}`))[0]!.c);
  // Start the processes and wait until each is listening, then fill the queue and wake them:
  // the clock runs from the fill, so process start-up (tsx compiling) is not counted.
  const ready: Promise<unknown>[] = [];
  for (let i = 0; i < procs; i++) {
    const c = spawn(process.execPath, ["--import", "tsx", "bench/worker-proc.ts", url, queue, String(Math.max(1, Math.round(CONCURRENCY / procs)))], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(c);
    ready.push(new Promise((res) => c.stdout?.once("data", res)));
  }
  await Promise.all(ready);
  const t0 = performance.now();
  await prefillJobscope(url, n, queue, { vacuum: false });
  await execute(db, sql`SELECT pg_notify('jobscope_queued', ${queue})`);
  await waitUntil("scaling burn-down", async () => (await remaining()) === 0, 30 * 60_000, 250);
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(children.map((c) => new Promise((res) => (c.once("exit", res), c.kill("SIGTERM")))));
  await closeDb(db);
  return { processes: procs, jobsPerSec: n / seconds, seconds };
}

/** The supervisor's tick on an idle table (nothing stale, nothing due): its cost is the two scans. */
async function supervisorScan(db: ReturnType<typeof connect>) {
  const [{ n }] = (await execute(db, sql`SELECT count(*)::int AS n FROM job_catalog`)) as unknown as [{ n: number }];
  await execute(db, sql`VACUUM ANALYZE jobs_live`);
  const sup = createSupervisor({ db, staleAfterMs: 10_000 });
  const times: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    await sup.tick();
    times.push(performance.now() - t);
    await sleep(5);
  }
  // The same statements as lib/supervisor/supervisor.ts, explained.
  const plan: string[] = [];
  for (const q of [
    `SELECT id, state, state_version, attempt, max_attempts FROM jobs_live WHERE state IN (${HEARTBEAT_STATES.map((s) => `'${s}'`).join(", ")}) AND heartbeat_at < now() - interval '10 seconds' ORDER BY heartbeat_at LIMIT 200`,
    `SELECT id, state, state_version, attempt, max_attempts FROM jobs_live WHERE state = 'retry_wait' AND not_before <= now() ORDER BY not_before LIMIT 200`,
  ]) {
    const rows = await execute(db, sql.raw(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${q}`));
    plan.push(rows.map((x) => Object.values(x)[0] as string).join("\n"));
  }
  return { rows: n, tickP50: pct(times.slice(10), 50), tickP95: pct(times.slice(10), 95), plan };
}

/** The run's report; `withPlans: false` leaves out the supervisor's plans (docs/benchmarks.md keeps the tables only). */
export function renderMarkdown(r: Results, withPlans = true): string {
  const ratio = (k: string) => (r.ratios[k] === undefined ? "n/a" : formatRatio(r.ratios[k]));
  const lines: string[] = [];
  lines.push(
    `| system | jobs | jobs/s | WAL bytes / job | heap rows / job | btree entries / job | PostgreSQL CPU µs / job | node CPU µs / job | kept afterwards |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---|`,
  );
  const n = (v: number | null, d = 0) => (v === null ? "n/a" : fmt(v, d));
  for (const b of r.throughput) {
    lines.push(
      `| ${b.system} | ${fmt(b.jobs)} | ${fmt(b.jobsPerSec)} | ${fmt(b.walPerJob)} | ${n(b.heapRowsPerJob, 1)} | ${n(b.btreeEntriesPerJob, 1)} | ${n(b.pgCpuUsPerJob)} | ${fmt(b.nodeCpuUsPerJob)} | ${b.kept} |`,
    );
  }
  const tput = lines.join("\n");
  const ratios = Object.keys(r.ratios)
    .map((k) => `| ${k} | ${ratio(k)} |`)
    .join("\n");
  const pickup = r.pickup.map((x) => `| ${x.system} | ${x.n} | ${fmt(x.p50, 1)} | ${fmt(x.p99, 1)} |`).join("\n");
  const load = r.load
    .map(
      (l) =>
        `| ${fmt(l.rate)}/s asked, ${fmt(l.enqueued / l.seconds)}/s enqueued × ${fmt(l.seconds)} s | ${fmt(l.failRate * 100)}% | ${fmt(l.enqueued)} | ${fmt(l.pickupP50, 1)} / ${fmt(l.pickupP99, 1)} | ${fmt(l.lagP50, 1)} / ${fmt(l.lagP99, 1)} | ${l.succeeded} / ${l.dead} | ${l.lost} | ${l.doubleFinalized} | ${l.runMismatch} |`,
    )
    .join("\n");
  const scaling = r.scaling
    .map(
      (s) =>
        `| ${s.processes} | ${fmt(CONCURRENCY / s.processes)} | ${fmt(s.jobsPerSec)} | ${fmt(s.jobsPerSec / (r.scaling[0]?.jobsPerSec ?? 1), 2)}× |`,
    )
    .join("\n");
  const sup = r.supervisor.map((s) => `| ${fmt(s.rows)} | ${fmt(s.tickP50, 2)} | ${fmt(s.tickP95, 2)} |`).join("\n");
  const plans = withPlans ? r.supervisor.map((s) => `At ${fmt(s.rows)} jobs:\n\n\`\`\`\n${s.plan.join("\n\n")}\n\`\`\``).join("\n\n") : "";
  const sz = r.sizes.map((s) => `| ${s.table} | ${fmt(s.rows)} | ${mb(s.tableBytes)} | ${mb(s.indexBytes)} | ${mb(s.perMillion)} |`).join("\n");
  const idle = new Map(r.consoleIdle.map((c) => [c.name, c]));
  const con = r.console
    .map((c) => {
      const i = idle.get(c.name);
      return `| ${c.name} | ${i ? `${fmt(i.p50, 1)} / ${fmt(i.p95, 1)}` : "n/a"} | ${i ? fmt(i.warmupMax, 1) : "n/a"} | ${c.n} | ${fmt(c.p50, 1)} | ${fmt(c.p95, 1)} | ${c.status} |`;
    })
    .join("\n");
  // A negative cost (fair faster than not) can only be the run's noise; say so only then.
  const fairnessCost = (ratio: number) =>
    `Fairness costs ${fmt(100 * (1 - ratio), 0)}% of this burn-down's throughput${ratio > 1 ? " (negative: within the run's noise)" : ""}.`;
  const fairness = r.fairness.length
    ? `### Fairness between tenants (one queue: tenant A submits ${r.fairness[0] ? fmt(r.fairness[0].aJobs) : "n/a"} jobs, then tenant B submits ${r.fairness[0]?.bJobs ?? "n/a"}; every job through \`enqueue\`, then one worker with ${CONCURRENCY} slots runs them all, no-op handlers)

| queue | B's wait p50 / p99 ms (worker start → B's handler start) | B's last job started as number | jobs/s over all |
|---|---:|---:|---:|
${r.fairness.map((f) => `| ${f.fair ? "fair" : "not fair"} | ${fmt(f.bWaitP50, 1)} / ${fmt(f.bWaitP99, 1)} | ${fmt(f.bLastStartRank)} of ${fmt(f.aJobs + f.bJobs)} | ${fmt(f.jobsPerSec)} |`).join("\n")}
${r.fairness.length === 2 ? `\n${fairnessCost(r.fairness[1]!.jobsPerSec / r.fairness[0]!.jobsPerSec)}\n` : ""}
`
    : "";
  return `Run: profile \`${r.profile}\`, ${r.startedAt}, ${fmt(r.minutes, 1)} min; ${r.machine}; load average ${fmt(r.loadAverage[0], 1)} at the start, ${fmt(r.loadAverage[1], 1)} at the end; ${r.postgres}; concurrency ${CONCURRENCY}.

### Engine throughput (burn-down of a pre-filled queue, no-op handlers; each row its median burn)

${tput}

| ratio (same run, same server: median of alternating pairs after a warm-up, and the range) | value |
|---|---:|
${ratios}

${
  r.factors.length
    ? `### One factor at a time (the A/B table: each factor burnt in ${r.factors[0]!.vsFinal.n} alternating pairs with the final design, after a warm-up burn)

| factor | what changes | jobs/s | the final design's jobs/s | vs the final design (median of the pairs, range) | heap rows / btree entries per job | PostgreSQL + node CPU µs / job |
|---|---|---:|---:|---:|---:|---:|
${r.factors.map((f) => `| ${f.name} | ${f.what} | ${fmt(f.burn.jobsPerSec)} | ${fmt(f.final.jobsPerSec)} | ${formatRatio(f.vsFinal)} | ${f.burn.heapRowsPerJob === null ? "n/a" : fmt(f.burn.heapRowsPerJob, 1)} / ${f.burn.btreeEntriesPerJob === null ? "n/a" : fmt(f.burn.btreeEntriesPerJob, 1)} | ${f.burn.pgCpuUsPerJob === null ? "n/a" : fmt(f.burn.pgCpuUsPerJob)} + ${fmt(f.burn.nodeCpuUsPerJob)} |`).join("\n")}

`
    : ""
}${
    r.drizzle
      ? `Drizzle on the hot path: ${fmt(r.drizzle.drizzleUs, 1)} µs of node CPU per claim statement through drizzle's prepared query, ${fmt(r.drizzle.directUs, 1)} µs through postgres.js directly with the same text and values (per statement: a round carries up to 500 jobs).
`
      : ""
  }
### Idle pickup latency (enqueue → handler start, sequential)

| system | n | p50 ms | p99 ms |
|---|---:|---:|---:|
${pickup}

${fairness}### Fixed-rate load (asking for ≈50% of the batched peak above through real \`enqueue\` calls, one job each, up to 64 in flight: the enqueued rate is what they sustain; supervisor running)

| rate × duration | failing attempts | jobs | pickup p50 / p99 ms | completion lag p50 / p99 ms | succeeded / dead | lost | finalized twice | runs ≠ attempts |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${load}

### Worker processes (burn-down, ${CONCURRENCY} slots split across processes)

| processes | concurrency each | jobs/s | vs 1 process |
|---:|---:|---:|---:|
${scaling}

### Console at scale (${r.generated ? fmt(r.generated.jobs) : "n/a"} jobs, over HTTP against \`next start\`, under the fixed-rate load with 10% failures)

${r.consoleNote}. Each kind of request is measured after ${WARMUP} of its own, not counted (the pool's connections plan a statement afresh for its first executions); "slowest warm-up" is the slowest of those on the idle console, the first ones of all right after \`next start\`.

| request | idle p50 / p95 ms | idle, slowest warm-up ms | n | under load p50 ms | under load p95 ms | HTTP status |
|---|---:|---:|---:|---:|---:|---|
${con}

Generated in ${r.generated ? fmt(r.generated.seconds) : "n/a"} s; integrity check of a 200-job sample: ${r.generated ? `${r.generated.integrityProblems} problems` : "n/a"}.

### Supervisor scan (one idle tick: stale leases + due retries)

| jobs in the table | tick p50 ms | tick p95 ms |
|---:|---:|---:|
${sup}

${plans}

### Size per million jobs (generated histories: ~1.2 runs and ~4.6 events per job)

| table | rows | table | indexes | table + indexes per 1M jobs |
|---|---:|---:|---:|---:|
${sz}
`;
}

async function main() {
  const { values } = parseArgs({ options: { profile: { type: "string", default: "full" }, only: { type: "string" }, out: { type: "string" } } });
  const profile = values.profile as Profile;
  if (!(profile in PROFILES)) throw new Error(`unknown profile ${profile}; one of ${Object.keys(PROFILES).join(", ")}`);
  const r = await runBench(profile, values.only ? new Set(values.only.split(",")) : undefined);
  const md = renderMarkdown(r);
  console.log(md);
  const out = values.out ?? `.data/bench-results-${profile}.md`;
  writeFileSync(out, md);
  writeFileSync(out.replace(/\.md$/, ".json"), JSON.stringify(r, null, 2));
  log(`wrote ${out}`);
  if (profile === "full" && !values.only) {
    // docs/benchmarks.md carries the last full run between its markers.
    const doc = readFileSync(DOC, "utf8");
    const [a, b] = [doc.indexOf(BEGIN), doc.indexOf(END)];
    if (a >= 0 && b > a) {
      // Formatted as the lint checks it (prettier), so that a run's commit is the run's figures alone.
      const updated = `${doc.slice(0, a + BEGIN.length)}\n${renderMarkdown(r, false)}\n${doc.slice(b)}`;
      writeFileSync(DOC, await format(updated, { ...(await resolveConfig(DOC)), filepath: DOC }));
      log(`updated ${DOC}`);
    }
  }
}

if (process.argv[1]?.endsWith("run.ts")) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
