import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "../jobs/claim";
import { auditJob } from "../jobs/test-helpers";
import { Lease } from "./lease";
import { silentLogger } from "./log";
import { runJob } from "./run-job";
import { eventsOf, freshQueue, getJob, runsOf, submit } from "./test-support";

const t = setupTestDb();

const deps = (draining: boolean, ran: string[]) => ({
  sql: t.sql,
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
    const job = await submit(t.sql, queue, { maxAttempts: 1 });
    const [claimed] = await claim(t.sql, { workerId: "w-drain", queues: [queue], limit: 1 });
    const ran: string[] = [];
    const outcome = await runJob(new Lease(claimed!), deps(true, ran));
    expect(outcome).toMatchObject({ status: "released", event: "release", state: "queued" });
    expect(ran).toEqual([]);
    // The attempt number never goes back (fencing token, run key); the budget grows by one instead.
    expect(await getJob(t.sql, job.id)).toMatchObject({ state: "queued", attempt: 1, maxAttempts: 2, leaseOwner: null });
    expect((await runsOf(t.sql, job.id)).map((r) => r.outcome)).toEqual(["released"]);

    // The next worker gets a full attempt: on a 1-attempt job it still runs, as attempt 2 of 2.
    const [again] = await claim(t.sql, { workerId: "w-next", queues: [queue], limit: 1 });
    expect(again).toMatchObject({ attempt: 2, maxAttempts: 2 });
    const next = await runJob(new Lease(again!), { ...deps(false, ran), workerId: "w-next" });
    expect(next).toMatchObject({ status: "reported", state: "succeeded" });
    expect((await eventsOf(t.sql, job.id)).map((e) => e.event)).toEqual(["submit", "claim", "release", "claim", "start", "finish"]);
    expect(await auditJob(t.sql, job.id)).toEqual([]);
  });

  it("a release is fenced like any worker write: after a reclaim it is refused and changes nothing", async () => {
    const queue = freshQueue();
    const job = await submit(t.sql, queue);
    const [claimed] = await claim(t.sql, { workerId: "w-drain", queues: [queue], limit: 1 });
    const [other] = await claim(t.sql, { workerId: "w-x", queues: [queue], limit: 1 });
    expect(other).toBeUndefined();
    // Someone else's claim of the same job after a reclaim: simulate with a stale lease of attempt 0.
    const stale = new Lease({ ...claimed!, attempt: 0 });
    const outcome = await runJob(stale, deps(true, []));
    expect(outcome).toMatchObject({ status: "refused", event: "release" });
    expect(await getJob(t.sql, job.id)).toMatchObject({ state: "claimed", attempt: 1, maxAttempts: 3 });
  });
});
