// Fixed-rate load against Jobscope: real enqueues through the API function, a
// batched worker, the supervisor promoting retries. Measures pickup (enqueue →
// handler start) and completion lag, and checks that no job was lost or
// finalized twice.
import { performance } from "node:perf_hooks";
import { closeDb, connect } from "../lib/db/client";
import { TERMINAL_STATES } from "../lib/fsm/table";
import { enqueue } from "../lib/jobs/enqueue";
import { createSupervisor } from "../lib/supervisor/supervisor";
import { silentLogger } from "../lib/worker/log";
import { createWorker } from "../lib/worker/worker";
import { pct, sleep, waitUntil } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

export type LoadResult = {
  rate: number;
  seconds: number;
  enqueued: number;
  failRate: number;
  pickupP50: number;
  pickupP99: number;
  lagP50: number;
  lagP99: number;
  succeeded: number;
  dead: number;
  lost: number;
  doubleFinalized: number;
  runMismatch: number;
  handlerRuns: number;
};

/** Wall-clock ms with sub-ms resolution, comparable with PostgreSQL's now() on the same host. */
const now = () => performance.timeOrigin + performance.now();

export class InjectedFailure extends Error {
  override name = "InjectedFailure";
}

/** Run `measure` while `fixedRate` load runs beside it (for `seconds` at most); the load stops when `measure` ends. */
export async function underLoad<T>(
  url: string,
  load: { rate: number; seconds: number; failRate: number; queue: string },
  measure: () => Promise<T>,
): Promise<T> {
  let done = false;
  const running = fixedRate(url, { ...load, stopWhen: () => done });
  try {
    return await measure();
  } finally {
    done = true;
    await running;
  }
}

/** Run `rate` jobs/s for `seconds` against the database at `url`; `failRate` of attempts throw. */
export async function fixedRate(
  url: string,
  opts: { rate: number; seconds: number; failRate: number; queue: string; concurrency?: number; stopWhen?: () => boolean },
): Promise<LoadResult> {
  const db = connect(url, { max: 10, appName: "bench-load-worker", genericPlans: true });
  const producer = connect(url, { max: 8, appName: "bench-load-producer", genericPlans: true });
  const t0 = new Map<string, number>();
  const startedAt = new Map<string, number>();
  const doneAt = new Map<string, number>();
  let handlerRuns = 0;
  const worker = createWorker({
    db,
    queues: [opts.queue],
    concurrency: opts.concurrency ?? 24,
    log: silentLogger,
    retry: { baseMs: 100, capMs: 1000, jitter: 0.25 },
    handlers: {
      "report.generate": async (ctx) => {
        handlerRuns++;
        if (!startedAt.has(ctx.job.id)) startedAt.set(ctx.job.id, now());
        if (Math.random() < opts.failRate) throw new InjectedFailure(`attempt ${ctx.attempt} failed on purpose`);
        return null;
      },
    },
    onOutcome: (o) => {
      if (o.status === "reported" && (o.state === "succeeded" || o.state === "dead")) doneAt.set(o.jobId, now());
    },
  });
  // The metrics roll-up and alert rules are off: the load measures the engine alone, comparably
  // with the runs before them (a production supervisor rolls up every 15 s; docs/benchmarks.md has its cost).
  const supervisor = createSupervisor({ db, intervalMs: 100, staleAfterMs: 10_000, metricsEveryMs: 0, alertsEveryMs: 0 });
  await worker.start();
  supervisor.start();

  const start = performance.now();
  let sent = 0;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  while (performance.now() - start < opts.seconds * 1000 && !opts.stopWhen?.()) {
    const due = Math.floor(((performance.now() - start) / 1000) * opts.rate);
    while (sent < due && inFlight < 64) {
      sent++;
      inFlight++;
      const p = enqueue(
        producer,
        { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: opts.queue, maxAttempts: 3 },
        { kind: "api", id: "bench-load" },
      )
        // From the job's created_at (its enqueue transaction's clock), not from the call: a call
        // that waits for one of the producer's connections has not enqueued anything yet.
        .then(({ job }) => void t0.set(job.id, job.createdAt.getTime()))
        .finally(() => {
          inFlight--;
          pending.delete(p);
        });
      pending.add(p);
    }
    await sleep(5);
  }
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  // Everything enqueued reaches a terminal state (retries take a few backoffs).
  await waitUntil("the load to finish", async () => doneAt.size >= t0.size, 120_000, 50).catch(() => {});
  await supervisor.stop();
  await worker.stop();

  const pickups: number[] = [];
  const lags: number[] = [];
  for (const [id, t] of t0) {
    const s = startedAt.get(id);
    if (s !== undefined) pickups.push(Math.max(0, s - t));
    const d = doneAt.get(id);
    if (d !== undefined) lags.push(d - t);
  }
  // Correctness from the database: every job terminal, one terminal event each, a run per attempt.
  const [c] = await execute<{ succeeded: number; dead: number; live: number; double: number; mismatch: number }>(
    db,
    sql`
    SELECT count(*) FILTER (WHERE state = 'succeeded')::int AS succeeded,
           count(*) FILTER (WHERE state = 'dead')::int AS dead,
           count(*) FILTER (WHERE state NOT IN ${TERMINAL_STATES})::int AS live,
           (SELECT count(*)::int FROM (
              SELECT e.job_id FROM job_events e JOIN jobs j ON j.id = e.job_id
               WHERE j.queue = ${opts.queue} AND e.to_state IN ${TERMINAL_STATES}
               GROUP BY e.job_id HAVING count(*) > 1) x) AS double,
           (SELECT count(*)::int FROM jobs j WHERE j.queue = ${opts.queue}
               AND j.attempt <> (SELECT count(*) FROM job_runs r WHERE r.job_id = j.id)) AS mismatch
      FROM jobs WHERE queue = ${opts.queue}`,
  );
  await closeDb(db);
  await closeDb(producer);
  return {
    rate: opts.rate,
    seconds,
    enqueued: t0.size,
    failRate: opts.failRate,
    pickupP50: pct(pickups, 50),
    pickupP99: pct(pickups, 99),
    lagP50: pct(lags, 50),
    lagP99: pct(lags, 99),
    succeeded: c!.succeeded,
    dead: c!.dead,
    lost: t0.size - c!.succeeded - c!.dead,
    doubleFinalized: c!.double,
    runMismatch: c!.mismatch,
    handlerRuns,
  };
}
