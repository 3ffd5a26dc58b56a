import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { transition } from "../jobs/transition";
import { DrainTimeout, JobCancelled, LeaseLost, PermanentError } from "./errors";
import {
  deferred,
  eventsOf,
  freshQueue,
  getJob,
  jobIn,
  OPERATOR,
  rejectionsOf,
  runsOf,
  submit,
  SUPERVISOR,
  waitFor,
  testWorkers,
} from "./test-support";
import type { Handlers, JobOutcome, WorkerOptions } from "./types";
import { sleep } from "./wakeup";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ max: 20 });
const launch = testWorkers(t.pool, { concurrency: 4, pollIntervalMs: 200 });

async function startWorker(queue: string, handlers: Handlers, over: Partial<WorkerOptions> = {}) {
  const outcomes: JobOutcome[] = [];
  const worker = await launch(queue, handlers, { onOutcome: (o) => outcomes.push(o), ...over });
  return { worker, outcomes };
}

/** Until the worker's row has been beaten `n` more times (its heartbeat ticks, on the database's clock). */
async function heartbeatTicks(workerId: string, n: number) {
  const lastSeen = async () => {
    const [w] = await execute<{ lastSeenAt: Date }>(t.pool, sql`SELECT last_seen_at FROM workers WHERE id = ${workerId}`);
    return w!.lastSeenAt.getTime();
  };
  for (let ticks = 0, last = await lastSeen(); ticks < n; ticks++) {
    last = await waitFor("a worker tick", async () => {
      const at = await lastSeen();
      return at > last ? at : null;
    });
  }
}

/**
 * A job on a queue of its own, running in its handler on a worker until `release()`; the handler
 * then ends with `end()` (returns its result, or throws). The job is queued before the worker
 * starts, so the worker's first claim takes it and no NOTIFY of it calls for a second.
 */
async function heldRunning(end: () => unknown, over: Partial<WorkerOptions> = {}) {
  const queue = freshQueue();
  const gate = deferred();
  const entered = deferred();
  const job = await submit(t.pool, queue);
  const { worker } = await startWorker(
    queue,
    {
      "report.generate": async () => {
        entered.resolve();
        await gate.promise;
        return end();
      },
    },
    over,
  );
  await entered.promise;
  await jobIn(t.pool, job.id, "running");
  return { queue, worker, job, release: () => gate.resolve() };
}

class FlakyError extends Error {}

describe("the worker", () => {
  it("runs a job to succeeded, stores the result on its run record, and registers itself", async () => {
    const queue = freshQueue();
    const seen: unknown[] = [];
    const { worker } = await startWorker(queue, {
      "export.tenant_data": async (ctx) => {
        seen.push({ params: ctx.job.params, attempt: ctx.attempt });
        return { rows: ctx.job.params.rows, url: "https://x.example/e.csv" };
      },
    });
    const job = await submit(t.pool, queue, { type: "export.tenant_data", params: { dataset: "orders", rows: 500 } });
    const done = await jobIn(t.pool, job.id, "succeeded", "dead", "retry_wait");
    expect(done).toMatchObject({ state: "succeeded", attempt: 1, leaseOwner: null });
    // The handler got params parsed with the type's schema: defaults applied.
    expect(seen).toEqual([{ params: { dataset: "orders", rows: 500, chunkRows: 10_000, format: "csv" }, attempt: 1 }]);
    const [run, ...more] = await runsOf(t.pool, job.id);
    expect(more).toEqual([]);
    expect(run).toMatchObject({ attempt: 1, workerId: worker.id, outcome: "succeeded", result: { rows: 500, url: "https://x.example/e.csv" } });
    expect(run?.startedAt).toBeInstanceOf(Date);
    const events = await eventsOf(t.pool, job.id);
    expect(events.map((e) => `${e.event}:${e.actorKind}:${e.toState}`)).toEqual([
      "submit:api:queued",
      "claim:worker:claimed",
      "start:worker:running",
      "finish:worker:succeeded",
    ]);
    expect(events.filter((e) => e.actorKind === "worker").every((e) => e.actorId === worker.id)).toBe(true);

    const [row] = await execute(t.pool, sql`SELECT host, pid, queues, concurrency, last_seen_at, stopped_at FROM workers WHERE id = ${worker.id}`);
    expect(row).toMatchObject({ pid: process.pid, queues: [queue], concurrency: 4, stoppedAt: null });
    const firstSeen = (row?.lastSeenAt as Date).getTime();
    await waitFor("last_seen_at to advance", async () => {
      const [r] = await execute(t.pool, sql`SELECT last_seen_at FROM workers WHERE id = ${worker.id}`);
      return (r?.lastSeenAt as Date).getTime() > firstSeen;
    });
    await worker.stop();
    const [after] = await execute(t.pool, sql`SELECT stopped_at FROM workers WHERE id = ${worker.id}`);
    expect(after?.stoppedAt).toBeInstanceOf(Date);
  });

  it("claims at once when a job is announced on jobscope_queued, without waiting for the poll", async () => {
    const queue = freshQueue();
    const other = freshQueue();
    await startWorker(queue, { "report.generate": async () => ({ ok: true }) }, { pollIntervalMs: 600_000 });
    const job = await submit(t.pool, queue);
    expect(await jobIn(t.pool, job.id, "succeeded")).toMatchObject({ state: "succeeded" });
    // A job on a queue the worker does not serve is left alone.
    const foreign = await submit(t.pool, other);
    const second = await submit(t.pool, queue);
    await jobIn(t.pool, second.id, "succeeded");
    expect((await getJob(t.pool, foreign.id)).state).toBe("queued");
  });

  it("fails a throwing job to retry_wait with backoff, and abandons it on the last attempt", async () => {
    const queue = freshQueue();
    await startWorker(
      queue,
      {
        // A per-type backoff, without jitter so the delay is exact.
        "report.generate": {
          run: async () => {
            throw new FlakyError("partner said no");
          },
          retry: { baseMs: 120_000, jitter: 0 },
        },
      },
      { retry: { baseMs: 1_000 } },
    );
    const job = await submit(t.pool, queue, { maxAttempts: 2 });
    const waiting = await jobIn(t.pool, job.id, "retry_wait", "dead", "succeeded");
    expect(waiting).toMatchObject({ state: "retry_wait", attempt: 1, leaseOwner: null });
    const delay = waiting.notBefore.getTime() - waiting.updatedAt.getTime();
    expect(delay).toBeGreaterThan(115_000);
    expect(delay).toBeLessThan(125_000);
    expect(await runsOf(t.pool, job.id)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: "failed", errorClass: "FlakyError", errorMessage: "partner said no" }),
    ]);

    // "Retry now" puts it back at once; the second attempt is the last, so its failure abandons it.
    const retried = await transition(t.pool, { jobId: job.id, event: "retry", actor: OPERATOR });
    expect(retried.ok).toBe(true);
    const dead = await jobIn(t.pool, job.id, "dead", "retry_wait", "succeeded");
    expect(dead).toMatchObject({ state: "dead", attempt: 2 });
    const runs = await runsOf(t.pool, job.id);
    expect(runs.map((r) => [r.attempt, r.outcome, r.errorClass])).toEqual([
      [1, "failed", "FlakyError"],
      [2, "failed", "FlakyError"],
    ]);
    const events = await eventsOf(t.pool, job.id);
    expect(events.map((e) => e.event)).toEqual(["submit", "claim", "start", "fail", "retry", "claim", "start", "abandon"]);
    expect(events.at(-1)).toMatchObject({ actorKind: "worker", toState: "dead", payload: { error: { class: "FlakyError" } } });
    expect(await rejectionsOf(t.pool, job.id)).toEqual([]);
  });

  it("abandons a job at once on a PermanentError", async () => {
    const queue = freshQueue();
    await startWorker(queue, {
      "report.generate": async () => {
        throw new PermanentError("period 2026-11 has no data");
      },
    });
    const job = await submit(t.pool, queue, { maxAttempts: 5 });
    const dead = await jobIn(t.pool, job.id, "dead", "retry_wait", "succeeded");
    expect(dead).toMatchObject({ state: "dead", attempt: 1 });
    expect(await runsOf(t.pool, job.id)).toEqual([
      expect.objectContaining({ outcome: "failed", errorClass: "PermanentError", errorMessage: "period 2026-11 has no data" }),
    ]);
    expect((await eventsOf(t.pool, job.id)).at(-1)).toMatchObject({ event: "abandon", actorKind: "worker", fromState: "running" });
  });

  it("stops a running job that is cancelled: checkpoint throws and the run ends cancelled", async () => {
    const queue = freshQueue();
    const inLoop = deferred();
    let thrown: unknown;
    await startWorker(queue, {
      "report.generate": async (ctx) => {
        inLoop.resolve();
        try {
          for (;;) {
            await ctx.checkpoint();
            await sleep(20);
          }
        } catch (e) {
          thrown = e;
          throw e;
        }
      },
    });
    const job = await submit(t.pool, queue);
    await inLoop.promise;
    const running = await jobIn(t.pool, job.id, "running");
    // A long job keeps beating: its heartbeat advances while it runs.
    await waitFor("a heartbeat", async () => (await getJob(t.pool, job.id)).heartbeatAt! > running.heartbeatAt!);
    const cancel = await transition(t.pool, { jobId: job.id, event: "cancel", actor: OPERATOR });
    expect(cancel).toMatchObject({ ok: true, job: { state: "cancelling" } });
    const done = await jobIn(t.pool, job.id, "cancelled", "succeeded", "dead", "retry_wait");
    expect(done.state).toBe("cancelled");
    expect(thrown).toBeInstanceOf(JobCancelled);
    expect(await runsOf(t.pool, job.id)).toEqual([expect.objectContaining({ outcome: "cancelled", errorClass: null })]);
    expect((await eventsOf(t.pool, job.id)).slice(-2)).toEqual([
      expect.objectContaining({ event: "cancel", actorKind: "operator", toState: "cancelling" }),
      expect.objectContaining({ event: "stop", actorKind: "worker", fromState: "cancelling", toState: "cancelled" }),
    ]);
  });

  it("holds a paused job at its checkpoint until it is resumed", async () => {
    const queue = freshQueue();
    let progress = 0;
    let resumed = false;
    const { worker } = await startWorker(queue, {
      // A long job: 20 ms chunks of work between checkpoints, until a chunk ends after the resume
      // (a fixed number of chunks could all be done before a slow machine's worker saw the pause).
      "report.generate": async (ctx) => {
        for (let i = 1; ; i++) {
          await ctx.checkpoint();
          await sleep(20);
          progress = i;
          if (resumed) return { chunks: progress };
        }
      },
    });
    const job = await submit(t.pool, queue);
    await waitFor("some progress", () => progress >= 2);
    expect(await transition(t.pool, { jobId: job.id, event: "pause", actor: OPERATOR })).toMatchObject({ ok: true });
    await waitFor("the handler to be held", () => worker.inFlight().find((j) => j.jobId === job.id)?.heldAtCheckpoint);
    const held = progress;
    // Let several heartbeat ticks pass (the worker's own clock, read from the database) while paused.
    await heartbeatTicks(worker.id, 3);
    expect(progress).toBe(held);
    expect((await getJob(t.pool, job.id)).state).toBe("paused");

    expect(await transition(t.pool, { jobId: job.id, event: "resume", actor: OPERATOR })).toMatchObject({ ok: true });
    resumed = true;
    const done = await jobIn(t.pool, job.id, "succeeded", "dead", "retry_wait", "cancelled");
    expect(done.state).toBe("succeeded");
    // It went on from where it was held: the chunk it was in, at least, ended after the resume.
    expect(progress).toBeGreaterThan(held);
    expect(await runsOf(t.pool, job.id)).toEqual([expect.objectContaining({ outcome: "succeeded", result: { chunks: progress } })]);
    expect((await eventsOf(t.pool, job.id)).map((e) => e.event)).toEqual(["submit", "claim", "start", "pause", "resume", "finish"]);
  });

  it("aborts ctx.signal when the lease is lost and never reports for that attempt", async () => {
    const queue = freshQueue();
    const firstRunning = deferred();
    let abortReason: unknown;
    const { outcomes } = await startWorker(queue, {
      "report.generate": async (ctx) => {
        if (ctx.attempt === 1) {
          firstRunning.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          abortReason = ctx.signal.reason;
          // A stale handler that carries on regardless: its result must go nowhere.
          return { from: "attempt 1" };
        }
        return { from: `attempt ${ctx.attempt}` };
      },
    });
    const job = await submit(t.pool, queue, { maxAttempts: 3 });
    await firstRunning.promise;
    // The supervisor decides the lease expired (here without waiting for staleness).
    const reclaimed = await transition(t.pool, { jobId: job.id, event: "reclaim", actor: SUPERVISOR });
    expect(reclaimed).toMatchObject({ ok: true, job: { state: "queued" } });
    await waitFor("the handler to be aborted", () => abortReason);
    expect(abortReason).toBeInstanceOf(LeaseLost);
    const done = await jobIn(t.pool, job.id, "succeeded", "dead", "retry_wait");
    expect(done).toMatchObject({ state: "succeeded", attempt: 2 });
    expect((await runsOf(t.pool, job.id)).map((r) => [r.attempt, r.outcome, r.result])).toEqual([
      [1, "lease_expired", null],
      [2, "succeeded", { from: "attempt 2" }],
    ]);
    expect(await rejectionsOf(t.pool, job.id)).toEqual([]);
    await waitFor("both outcomes", () => outcomes.length >= 2);
    expect(outcomes.find((o) => o.attempt === 1)).toMatchObject({ status: "lease_lost" });
  });

  it("re-decides once when the job moved under it: a permanent error on a cancelled job ends it cancelled", async () => {
    // A slow heartbeat, so the worker still believes the job is running when it reports.
    const { job, release } = await heldRunning(
      () => {
        throw new PermanentError("bad input");
      },
      { heartbeatIntervalMs: 60_000 },
    );
    expect(await transition(t.pool, { jobId: job.id, event: "cancel", actor: OPERATOR })).toMatchObject({ ok: true });
    release();
    expect(await jobIn(t.pool, job.id, "cancelled", "dead")).toMatchObject({ state: "cancelled" });
    // abandon (chosen from `running`) was refused; fail from `cancelling` applied.
    expect(await rejectionsOf(t.pool, job.id)).toEqual([expect.objectContaining({ kind: "conflict", event: "abandon", actorKind: "worker" })]);
    expect((await eventsOf(t.pool, job.id)).at(-1)).toMatchObject({ event: "fail", fromState: "cancelling", toState: "cancelled" });
    expect(await runsOf(t.pool, job.id)).toEqual([expect.objectContaining({ outcome: "failed", errorClass: "PermanentError" })]);
  });

  it("holds a result reached while paused until the job is resumed", async () => {
    const { job, release } = await heldRunning(() => ({ done: true }), { heartbeatIntervalMs: 60_000 });
    expect(await transition(t.pool, { jobId: job.id, event: "pause", actor: OPERATOR })).toMatchObject({ ok: true });
    release();
    // The worker tried to finish, was refused, and now holds the result.
    await waitFor("the refused finish", async () => (await rejectionsOf(t.pool, job.id)).length > 0);
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "paused" });
    expect(await transition(t.pool, { jobId: job.id, event: "resume", actor: OPERATOR })).toMatchObject({ ok: true });
    expect(await jobIn(t.pool, job.id, "succeeded", "dead")).toMatchObject({ state: "succeeded" });
    expect(await runsOf(t.pool, job.id)).toEqual([expect.objectContaining({ outcome: "succeeded", result: { done: true } })]);
  });

  it("runs at most `concurrency` jobs at once and survives failing ones", async () => {
    const queue = freshQueue();
    // Submitted before the worker starts, so both slots fill at once.
    const jobs = [];
    for (let i = 0; i < 6; i++) {
      const report = i % 3 === 0 ? "audit_trail" : "daily_usage";
      jobs.push(await submit(t.pool, queue, { params: { report, period: "2026-11" } }));
    }
    let now = 0;
    let peak = 0;
    const gate = deferred();
    await startWorker(
      queue,
      {
        "report.generate": async (ctx) => {
          peak = Math.max(peak, ++now);
          await gate.promise;
          now--;
          if (ctx.job.params.report === "audit_trail") throw new PermanentError("no audit trail");
          return { ok: true };
        },
      },
      // No claim ahead (a job is running from its claim): the two slots alone decide what is taken.
      { concurrency: 2, prefetch: 0 },
    );
    // Both slots in use, held: the other four were not claimed, they wait in the queue.
    await waitFor("both slots in use", () => now === 2);
    const states = await Promise.all(jobs.map(async (j) => (await getJob(t.pool, j.id)).state));
    expect(states.filter((s) => s === "queued")).toHaveLength(4);
    gate.resolve();
    const ends = await Promise.all(jobs.map((j) => jobIn(t.pool, j.id, "succeeded", "dead")));
    expect(ends.map((j) => j.state)).toEqual(["dead", "succeeded", "succeeded", "dead", "succeeded", "succeeded"]);
    expect(peak).toBe(2);
  });

  // A batched round's claim hands its jobs to the handlers; their reports go out together in the next
  // round once they have ended in the same turn, not a few in one round and the rest in the next.
  it("a batched worker reports the jobs of one claim in one round", async () => {
    const queue = freshQueue();
    const jobs = [];
    for (let i = 0; i < 400; i++) jobs.push(await submit(t.pool, queue));
    // No poll while it runs: each would add a round (a claim that finds nothing once the queue is empty).
    const { worker } = await startWorker(
      queue,
      { "report.generate": async () => null },
      { concurrency: 8, maxBatch: 100, prefetch: 92, pollIntervalMs: 60_000 },
    );
    for (const j of jobs) expect((await jobIn(t.pool, j.id, "succeeded", "dead", "retry_wait")).state).toBe("succeeded");
    // Four claims of 100, each with the reports of the one before, and the last reports with a claim
    // that comes back empty: five statements. Sent when the first handlers had ended, the rounds
    // alternated 16 and 84 reports: 13–15.
    const { rounds, reports } = worker.stats();
    expect(reports).toBe(400);
    expect(rounds).toBeLessThanOrEqual(8);
  });

  // One job per statement from eight slots, on two pipelined connections (lib/db/lanes.ts): every
  // round statement runs on one of those two backends, and the worker goes on after both are killed.
  it("an unbatched worker sends its slots' rounds on a few connections, and replaces them when they are lost", async () => {
    const queue = freshQueue();
    const own = t.connect({ max: 12, appName: "unbatched-worker" });
    const roundBackends = async () =>
      (
        await execute<{ pid: number }>(
          t.pool,
          sql`SELECT pid FROM pg_stat_activity
               WHERE application_name = 'unbatched-worker' AND datname = current_database() AND query LIKE 'WITH mark AS MATERIALIZED%'`,
        )
      ).map((r) => r.pid);
    const batch = async (n: number) => {
      const jobs = [];
      for (let i = 0; i < n; i++) jobs.push(await submit(t.pool, queue));
      return jobs;
    };
    const first = await batch(24);
    const { worker } = await startWorker(
      queue,
      { "report.generate": () => sleep(5).then(() => null) },
      { db: own, concurrency: 8, batch: false, connections: 2 },
    );
    for (const j of first) expect((await jobIn(t.pool, j.id, "succeeded", "dead", "retry_wait")).state).toBe("succeeded");
    const lanes = await roundBackends();
    // Eight slots' statements, one job each, went out on two backends only.
    expect(lanes.length).toBe(2);
    expect(worker.stats().rounds).toBeGreaterThanOrEqual(24);

    // Both killed while idle: the next rounds fail on them (their reports go again on the pool), the
    // worker reserves two more connections and goes on claiming.
    await execute(t.pool, sql`SELECT pg_terminate_backend(pid) FROM unnest(${`{${lanes.join(",")}}`}::int[]) AS x(pid)`);
    const second = await batch(24);
    for (const j of second) expect((await jobIn(t.pool, j.id, "succeeded", "dead", "retry_wait")).state).toBe("succeeded");
    expect((await roundBackends()).length).toBeGreaterThan(0);
  });

  it("fails a job whose handler throws a value that is not even a string, and frees its slot for the next", async () => {
    const queue = freshQueue();
    const bad = await submit(t.pool, queue, { maxAttempts: 1, params: { report: "audit_trail", period: "2026-11" } });
    const good = await submit(t.pool, queue);
    await startWorker(
      queue,
      {
        "report.generate": async (ctx) => {
          if (ctx.job.params.report === "audit_trail") throw Object.create(null);
          return { ok: true };
        },
      },
      { concurrency: 1 },
    );
    expect(await jobIn(t.pool, bad.id, "dead", "succeeded")).toMatchObject({ state: "dead" });
    expect(await runsOf(t.pool, bad.id)).toEqual([
      expect.objectContaining({ outcome: "failed", errorClass: "NonErrorThrown", errorMessage: "[object Object]" }),
    ]);
    expect(await jobIn(t.pool, good.id, "succeeded", "dead")).toMatchObject({ state: "succeeded" });
  });

  it("drains in-flight work on stop() and claims nothing more", async () => {
    // A claim already in flight when stop() is called still lands, by design, and could take the late
    // job; none is here. No poll (it claims every 200 ms here), and the held job was queued before the
    // worker started (each took the late job once in a loaded CI run).
    const { queue, worker, job, release } = await heldRunning(() => ({ drained: true }), { pollIntervalMs: 600_000 });
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    const late = await submit(t.pool, queue);
    expect(stopped).toBe(false);
    expect((await getJob(t.pool, job.id)).state).toBe("running");
    release();
    await stopping;
    expect((await getJob(t.pool, job.id)).state).toBe("succeeded");
    expect(await runsOf(t.pool, job.id)).toEqual([expect.objectContaining({ outcome: "succeeded", result: { drained: true } })]);
    expect((await getJob(t.pool, late.id)).state).toBe("queued");
    const [row] = await execute(t.pool, sql`SELECT stopped_at FROM workers WHERE id = ${worker.id}`);
    expect(row?.stoppedAt).toBeInstanceOf(Date);
  });

  it("aborts handlers still running when the drain times out, leaving their leases to expire", async () => {
    const queue = freshQueue();
    const entered = deferred();
    let reason: unknown;
    const { worker, outcomes } = await startWorker(
      queue,
      {
        "report.generate": async (ctx) => {
          entered.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          reason = ctx.signal.reason;
          throw ctx.signal.reason;
        },
      },
      { drainTimeoutMs: 150 },
    );
    const job = await submit(t.pool, queue);
    await entered.promise;
    await worker.stop();
    expect(reason).toBeInstanceOf(DrainTimeout);
    expect(outcomes).toEqual([expect.objectContaining({ jobId: job.id, status: "drained" })]);
    // Nothing was reported: the job is still running under the old lease, for the supervisor to reclaim.
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "running", leaseOwner: worker.id });
    expect(await runsOf(t.pool, job.id)).toEqual([expect.objectContaining({ outcome: null })]);
    const heartbeatAt = (await getJob(t.pool, job.id)).heartbeatAt;
    // The stopped worker no longer beats for it. An absence is seen only over time: three heartbeat
    // ticks of a live worker with the same interval, which slow down as much as a loaded machine does.
    const { worker: witness } = await startWorker(freshQueue(), {});
    await heartbeatTicks(witness.id, 3);
    expect((await getJob(t.pool, job.id)).heartbeatAt).toEqual(heartbeatAt);
  });
});
