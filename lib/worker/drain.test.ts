import { afterEach, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { listWorkers, workerStatus } from "../insight/workers";
import { SILENT_AFTER_MS } from "../insight/windows";
import { claim } from "../jobs/claim";
import { checkJobIntegrity } from "../jobs/test-helpers";
import { Lease } from "./lease";
import { silentLogger } from "./log";
import { runJobAsync } from "./run-job";
import { requestDrain } from "./registry";
import { deferred, eventsOf, freshQueue, getJob, jobIn, runsOf, submit, waitFor } from "./test-support";
import type { Worker } from "./types";
import { createWorker } from "./worker";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const deps = (draining: boolean, ran: string[]) => ({
  db: t.pool,
  workerId: "w-drain",
  log: silentLogger,
  refresh: async () => {},
  allowProcessKill: false,
  retry: {},
  draining: () => draining,
  handlers: {
    "report.generate": async (ctx: { job: { id: string } }) => {
      ran.push(ctx.job.id);
      return { ok: true };
    },
  },
});

describe("draining (SIGTERM)", () => {
  it("releases a claimed job it has not started: back to queued, the attempt refunded, the run closed as released", async () => {
    const queue = freshQueue();
    const job = await submit(t.pool, queue, { maxAttempts: 1 });
    const [claimed] = await claim(t.pool, { workerId: "w-drain", queues: [queue], limit: 1 });
    const ran: string[] = [];
    const outcome = await runJobAsync(new Lease(claimed!), deps(true, ran));
    expect(outcome).toMatchObject({ status: "released", event: "release", state: "queued" });
    expect(ran).toEqual([]);
    // The attempt number never goes back (fencing token, run key); the budget grows by one instead.
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "queued", attempt: 1, maxAttempts: 2, leaseOwner: null });
    expect((await runsOf(t.pool, job.id)).map((r) => r.outcome)).toEqual(["released"]);

    // The next worker gets a full attempt: on a 1-attempt job it still runs, as attempt 2 of 2.
    const [again] = await claim(t.pool, { workerId: "w-next", queues: [queue], limit: 1 });
    expect(again).toMatchObject({ attempt: 2, maxAttempts: 2 });
    const next = await runJobAsync(new Lease(again!), { ...deps(false, ran), workerId: "w-next" });
    expect(next).toMatchObject({ status: "reported", state: "succeeded" });
    expect((await eventsOf(t.pool, job.id)).map((e) => e.event)).toEqual(["submit", "claim", "release", "claim", "start", "finish"]);
    expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
  });

  it("a release is fenced like any worker write: after a reclaim it is refused and changes nothing", async () => {
    const queue = freshQueue();
    const job = await submit(t.pool, queue);
    const [claimed] = await claim(t.pool, { workerId: "w-drain", queues: [queue], limit: 1 });
    const [other] = await claim(t.pool, { workerId: "w-x", queues: [queue], limit: 1 });
    expect(other).toBeUndefined();
    // Someone else's claim of the same job after a reclaim: simulate with a stale lease of attempt 0.
    const stale = new Lease({ ...claimed!, attempt: 0 });
    const outcome = await runJobAsync(stale, deps(true, []));
    expect(outcome).toMatchObject({ status: "refused", event: "release" });
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "claimed", attempt: 1, maxAttempts: 3 });
  });
});

describe("an operator's drain request", () => {
  let worker: Worker | null = null;
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });

  it("is read with the worker's heartbeat: it stops claiming, finishes what it holds, and stops, as on SIGTERM", async () => {
    const queue = freshQueue();
    const gate = deferred();
    const entered = deferred();
    const asked: (string | null)[] = [];
    const w = createWorker({
      db: t.pool,
      id: `w-asked-${queue}`,
      queues: [queue],
      concurrency: 2,
      heartbeatIntervalMs: 100,
      pollIntervalMs: 100,
      log: silentLogger,
      handlers: {
        "report.generate": async () => {
          entered.resolve();
          await gate.promise;
          return { ok: true };
        },
      },
      // As scripts/worker.ts does with its SIGTERM handler; the library's default is the same drain.
      onDrainRequest: (by) => {
        asked.push(by);
        void w.stop();
      },
    });
    worker = w;
    await w.start();
    const held = await submit(t.pool, queue);
    await entered.promise;

    expect(await requestDrain(t.pool, w.id, "operator@jobscope.local", SILENT_AFTER_MS)).toMatchObject({ outcome: "requested" });
    // A second request changes nothing; the first stands.
    expect(await requestDrain(t.pool, w.id, "admin@jobscope.local", SILENT_AFTER_MS)).toMatchObject({ outcome: "already" });
    await waitFor("the worker to see the request", () => asked.length > 0);
    expect(asked).toEqual(["operator@jobscope.local"]);
    const draining = (await listWorkers(t.pool)).find((x) => x.id === w.id);
    expect(draining).toMatchObject({ status: "draining", drainRequestedBy: "operator@jobscope.local", stoppedAt: null });

    // Draining: a job submitted now is not claimed; the held one finishes and is reported.
    const later = await submit(t.pool, queue);
    gate.resolve();
    await jobIn(t.pool, held.id, "succeeded");
    const stopped = await waitFor("the worker to stop", async () => (await listWorkers(t.pool)).find((x) => x.id === w.id && x.status === "stopped"));
    expect(stopped.drainRequestedBy).toBe("operator@jobscope.local");
    expect(await getJob(t.pool, later.id)).toMatchObject({ state: "queued", attempt: 0 });
    // A stopped worker cannot be asked again, nor one that does not exist.
    expect(await requestDrain(t.pool, w.id, "operator@jobscope.local", SILENT_AFTER_MS)).toEqual({ outcome: "not_running" });
    expect(await requestDrain(t.pool, "no-such-worker", "operator@jobscope.local", SILENT_AFTER_MS)).toEqual({ outcome: "not_found" });
  });

  it("a worker that stopped heartbeating without saying so is crashed, and cannot be asked to drain", async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    expect(workerStatus(ago(1_000), null, now)).toBe("live");
    expect(workerStatus(ago(1_000), null, now, ago(500))).toBe("draining");
    expect(workerStatus(ago(SILENT_AFTER_MS + 1), null, now)).toBe("crashed");
    expect(workerStatus(ago(SILENT_AFTER_MS + 1), null, now, ago(500))).toBe("crashed");
    expect(workerStatus(ago(SILENT_AFTER_MS + 1), ago(SILENT_AFTER_MS), now)).toBe("stopped");

    const id = `w-crashed-${freshQueue()}`;
    await execute(
      t.pool,
      sql`INSERT INTO workers (id, host, pid, queues, concurrency, started_at, last_seen_at)
                VALUES (${id}, 'host-a', 1, '{q}', 1, now() - interval '2 minutes', now() - interval '1 minute')`,
    );
    expect((await listWorkers(t.pool)).find((x) => x.id === id)?.status).toBe("crashed");
    expect(await requestDrain(t.pool, id, "operator@jobscope.local", SILENT_AFTER_MS)).toEqual({ outcome: "not_running" });
  });
});
