// The systems under test, each driven the way its documentation recommends:
// prefill a queue, burn it down with no-op handlers, and time single jobs on
// an idle system.
import { performance } from "node:perf_hooks";
import { Logger, makeWorkerUtils, run as runGraphile, runMigrations } from "graphile-worker";
import PgBoss from "pg-boss";
import { closeDb, connect } from "../lib/db/client";
import { enqueue } from "../lib/jobs/enqueue";
import { workerRound } from "../lib/jobs/round";
import type { ClaimedJob } from "../lib/jobs/types";
import { silentLogger } from "../lib/worker/log";
import { createWorker } from "../lib/worker/worker";
import { prefillJobscope } from "./generate";
import { snapshot, sleep, walBytes, walRecords, waitUntil, type Snapshot } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

export type Burn = {
  system: string;
  jobs: number;
  seconds: number;
  jobsPerSec: number;
  walPerJob: number;
  /** From the WAL (pg_walinspect): heap rows written and btree index entries inserted per job. */
  heapRowsPerJob: number | null;
  btreeEntriesPerJob: number | null;
  /** CPU per job: the PostgreSQL server's (all its processes), and this node process's (the system under test runs in it). */
  pgCpuUsPerJob: number | null;
  nodeCpuUsPerJob: number;
  kept: string;
};

const API = { kind: "api", id: "bench" } as const;
export const BENCH_QUEUE = "bench";

/**
 * A burn-down of `warm` + `n` + `tail` jobs (`burnJobs(n)`). Its rate is timed over the middle `n`:
 * the first `warm` warm it up (connections opening, statements prepared, caches and the JIT
 * filling: for a queue that burns down in a second, a large share of it), and the `tail` keeps the
 * queue deep until the window closes, so that each system holds the same prefetch (up to 1,000
 * jobs for Jobscope, 500 for graphile-worker) when the window opens as when it closes. Its costs
 * per job (CPU, WAL, rows and index entries) are read over the whole run, start included, and
 * divided by all its jobs: a window that opens mid-run would leave out the claims of the jobs
 * already prefetched then. Every system is measured the same way.
 */
type BurnRun = { start: () => Promise<void>; finished: () => Promise<number>; stop: () => Promise<void> };

export async function measure(url: string, system: string, n: number, run: BurnRun, kept: () => Promise<string>): Promise<Burn> {
  const { warm, all } = burnJobs(n);
  const probe = connect(url, { max: 1 });
  const before: Snapshot = await snapshot(probe);
  const cpu0 = process.cpuUsage();
  await run.start();
  await waitUntil(`${system} warm-up`, async () => (await run.finished()) >= warm, 30 * 60_000, 1);
  const t0 = performance.now();
  await waitUntil(`${system} burn-down`, async () => (await run.finished()) >= warm + n, 30 * 60_000, 1);
  const seconds = (performance.now() - t0) / 1000;
  await waitUntil(`${system} tail`, async () => (await run.finished()) >= all, 30 * 60_000, 1);
  const cpu = process.cpuUsage(cpu0);
  const after = await snapshot(probe);
  await closeDb(probe);
  await run.stop();
  const wal = await walBytes(url, before, after);
  const records = await walRecords(url, before, after);
  return {
    system,
    jobs: n,
    seconds,
    jobsPerSec: n / seconds,
    walPerJob: wal / all,
    heapRowsPerJob: records ? records.heapRows / all : null,
    btreeEntriesPerJob: records ? records.btreeEntries / all : null,
    pgCpuUsPerJob: before.pgCpuUs !== null && after.pgCpuUs !== null ? (after.pgCpuUs - before.pgCpuUs) / all : null,
    nodeCpuUsPerJob: (cpu.user + cpu.system) / all,
    kept: await kept(),
  };
}

async function keptJobscope(url: string) {
  const db = connect(url, { max: 1 });
  const [r] = await execute<{ jobs: number; runs: number; events: number }>(
    db,
    sql`SELECT (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM job_runs)::int AS runs,
                               (SELECT count(*) FROM job_events)::int AS events`,
  );
  await closeDb(db);
  return `${r!.jobs} jobs, ${r!.runs} run records, ${r!.events} events (full history)`;
}

/**
 * The jobs of a burn-down timed over `n` (the same for every system): `warm` finish before its
 * window opens, as many again are still queued when it closes (the tail), `all` are prefilled.
 */
export function burnJobs(n: number) {
  const warm = Math.min(5000, Math.ceil(n / 4));
  return { warm, all: n + 2 * warm };
}

/** Jobscope's burn-down: `prefilled` when the caller filled the queue with `burnJobs(n).all` jobs. */
export async function burnJobscope(
  url: string,
  n: number,
  opts: {
    concurrency: number;
    batch: boolean;
    label: string;
    prefilled?: boolean;
    worker?: { pipelines?: number; claimPipelines?: number; maxBatch?: number; prefetch?: number };
  },
): Promise<Burn> {
  if (!opts.prefilled) await prefillJobscope(url, burnJobs(n).all);
  const db = connect(url, { max: opts.batch ? 8 : opts.concurrency + 4, appName: "bench-jobscope", genericPlans: true });
  let done = 0;
  const worker = createWorker({
    db,
    queues: [BENCH_QUEUE],
    concurrency: opts.concurrency,
    batch: opts.batch,
    log: silentLogger,
    ...opts.worker,
    handlers: { "report.generate": async () => null },
    onOutcome: (o) => {
      if (o.status === "reported") done++;
    },
  });
  return measure(
    url,
    opts.label,
    n,
    {
      start: () => worker.start(),
      finished: async () => done,
      async stop() {
        await worker.stop();
        await closeDb(db);
      },
    },
    () => keptJobscope(url),
  );
}

/**
 * Jobscope's worker round (lib/jobs/round.ts), every guard and trigger on, sent by a bare loop: each
 * of `pipelines` statements reports the finish of up to `maxBatch` jobs claimed earlier and claims
 * as many, as a batched worker's rounds do, with no handlers, leases, slots or timers. Not a
 * product: next to Jobscope's burn in the same run it shows what the worker's runtime costs, next
 * to the skeleton's what the guards and the round's answer cost (docs/benchmarks.md).
 */
export async function burnRoundsAlone(url: string, n: number, label: string, opts = { pipelines: 2, maxBatch: 500 }): Promise<Burn> {
  const db = connect(url, { max: opts.pipelines + 1, appName: "bench-rounds", genericPlans: true });
  const workerId = "bench-rounds";
  const actor = { kind: "worker", id: workerId } as const;
  const { all } = burnJobs(n);
  let done = 0;
  const held: ClaimedJob[] = [];
  const pipeline = async () => {
    while (done < all) {
      const reports = held.splice(0, opts.maxBatch).map((j) => ({
        jobId: j.id,
        event: "finish" as const,
        actor,
        attempt: j.attempt,
        expected: { state: j.state, version: j.stateVersion },
      }));
      const want = Math.max(0, Math.min(opts.maxBatch, 2 * opts.maxBatch - held.length));
      const r = await workerRound(db, workerId, reports, want > 0 ? { workerId, queues: [BENCH_QUEUE], limit: want, startNow: want } : null);
      // Nothing else moves these jobs: a finish that did not apply is a bug, not a retry.
      if (r.reports.some((x) => x === null)) throw new Error("a finish of the bare rounds did not apply");
      done += reports.length;
      held.push(...r.claimed);
      if (reports.length === 0 && r.claimed.length === 0) await sleep(1);
    }
  };
  let running: Promise<unknown> = Promise.resolve();
  return measure(
    url,
    label,
    n,
    {
      start: async () => void (running = Promise.all(Array.from({ length: opts.pipelines }, pipeline))),
      finished: async () => done,
      async stop() {
        await running;
        await closeDb(db);
      },
    },
    () => keptJobscope(url),
  );
}

export async function burnGraphile(url: string, n: number, opts: { concurrency: number; batch: boolean; label: string }): Promise<Burn> {
  await runMigrations({ connectionString: url, logger: quietGraphile() });
  const utils = await makeWorkerUtils({ connectionString: url, logger: quietGraphile() });
  const total = burnJobs(n).all;
  for (let i = 0; i < total; i += 5000) {
    await utils.addJobs(Array.from({ length: Math.min(5000, total - i) }, () => ({ identifier: "noop", payload: {} })));
  }
  await utils.release();
  return burnCompetitor(url, n, opts.label, {
    name: "graphile",
    table: "graphile_worker._private_jobs",
    // Finished jobs are deleted: every row is unfinished.
    unfinished: "",
    kept: "jobs (finished jobs are deleted; no history)",
    async start(handled) {
      const runner = await runGraphile({
        connectionString: url,
        concurrency: opts.concurrency,
        maxPoolSize: opts.concurrency + 4,
        noHandleSignals: true,
        pollInterval: 1000,
        logger: quietGraphile(),
        taskList: { noop: async () => handled(1) },
        // https://worker.graphile.org/docs/performance#batching: a local queue and batched completions.
        ...(opts.batch && { preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } } }),
      });
      return () => runner.stop();
    },
  });
}

export async function burnPgBoss(url: string, n: number, opts: { concurrency: number; batchSize: number; label: string }): Promise<Burn> {
  const boss = new PgBoss({ connectionString: url, max: opts.concurrency + 4, schedule: false, supervise: false });
  boss.on("error", () => {});
  await boss.start();
  await boss.createQueue(BENCH_QUEUE);
  const total = burnJobs(n).all;
  for (let i = 0; i < total; i += 5000) {
    await boss.insert(Array.from({ length: Math.min(5000, total - i) }, () => ({ name: BENCH_QUEUE, data: {} })));
  }
  return burnCompetitor(url, n, opts.label, {
    name: "pg-boss",
    table: "pgboss.job",
    unfinished: "WHERE state <> 'completed'",
    kept: "job rows in state completed (archived later; no per-attempt history)",
    async start(handled) {
      // pg-boss 10: concurrency is several work() subscriptions, each fetching batchSize jobs per poll.
      for (let i = 0; i < opts.concurrency; i++) {
        await boss.work(BENCH_QUEUE, { batchSize: opts.batchSize, pollingIntervalSeconds: 0.5 }, async (jobs) => handled(jobs.length));
      }
      return () => boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  });
}

/**
 * Another engine's burn-down, watched through its job table (vacuumed first): `start` starts its
 * workers, whose handlers report each job they are handed, and returns how to stop them. A job
 * counts as finished once its handler has seen it; the last one, once the table also holds no
 * `unfinished` row (completions are batched after the handlers).
 */
async function burnCompetitor(
  url: string,
  n: number,
  label: string,
  o: { name: string; table: string; unfinished: string; kept: string; start: (handled: (jobs: number) => void) => Promise<() => Promise<void>> },
): Promise<Burn> {
  const admin = connect(url, { max: 1 });
  const count = async (where: string) => Number((await execute(admin, sql.raw(`SELECT count(*)::int AS c FROM ${o.table} ${where}`)))[0]!.c);
  await execute(admin, sql.raw(`VACUUM ANALYZE ${o.table}`));
  const { all } = burnJobs(n);
  let handled = 0;
  let stop: (() => Promise<void>) | null = null;
  const r = await measure(
    url,
    label,
    n,
    {
      start: async () => void (stop = await o.start((jobs) => void (handled += jobs))),
      // What the handlers saw, but the last job only once every completion is in.
      finished: async () => (handled >= all && (await count(o.unfinished)) > 0 ? all - 1 : handled),
      stop: () => stop!(),
    },
    async () => `${await count("")} ${o.kept}`,
  );
  await closeDb(admin);
  return r;
}

function quietGraphile() {
  // graphile-worker's Logger: a factory of scoped log functions; errors only.
  return new Logger(() => (level: string, message: string) => {
    if (level === "error") console.error(`[graphile-worker] ${message}`);
  });
}

/**
 * Idle pickup latency: enqueue → handler start, sequential. The engine's handler calls `started`;
 * `measure` submits a job `n` times and times each until its handler starts.
 */
function pickupProbe() {
  let resolveStart: ((t: number) => void) | null = null;
  return {
    started: async () => void resolveStart?.(performance.now()),
    async measure(n: number, submit: () => Promise<unknown>): Promise<number[]> {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = new Promise<number>((r) => (resolveStart = r));
        const t0 = performance.now();
        await submit();
        out.push((await started) - t0);
        await sleep(15);
      }
      return out;
    },
  };
}

export async function pickupJobscope(url: string, n: number): Promise<number[]> {
  const db = connect(url, { max: 6, appName: "bench-pickup", genericPlans: true });
  const probe = pickupProbe();
  const worker = createWorker({
    db,
    queues: ["pickup"],
    concurrency: 4,
    log: silentLogger,
    handlers: { "report.generate": probe.started },
  });
  await worker.start();
  await sleep(200);
  // Without LISTEN the worker polls (1 s): a pickup figure from that would measure the poll, not the engine.
  if (!worker.stats().listening) throw new Error("pickup: the worker is not listening for jobscope_queued");
  const out = await probe.measure(n, () =>
    enqueue(db, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: "pickup" }, API),
  );
  await worker.stop();
  await closeDb(db);
  return out;
}

export async function pickupGraphile(url: string, n: number): Promise<number[]> {
  await runMigrations({ connectionString: url, logger: quietGraphile() });
  const probe = pickupProbe();
  const runner = await runGraphile({
    connectionString: url,
    concurrency: 4,
    noHandleSignals: true,
    pollInterval: 2000,
    logger: quietGraphile(),
    taskList: { pickup: probe.started },
  });
  const utils = await makeWorkerUtils({ connectionString: url, logger: quietGraphile() });
  await sleep(200);
  const out = await probe.measure(n, () => utils.addJob("pickup", {}));
  await utils.release();
  await runner.stop();
  return out;
}

export async function pickupPgBoss(url: string, n: number): Promise<number[]> {
  const boss = new PgBoss({ connectionString: url, max: 6, schedule: false, supervise: false });
  boss.on("error", () => {});
  await boss.start();
  await boss.createQueue("pickup");
  const probe = pickupProbe();
  // The shortest polling interval pg-boss 10 accepts; it has no LISTEN/NOTIFY wake-up.
  await boss.work("pickup", { pollingIntervalSeconds: 0.5 }, probe.started);
  const out = await probe.measure(n, () => boss.send("pickup", {}));
  await boss.stop({ graceful: true, wait: true, timeout: 5000 });
  return out;
}
