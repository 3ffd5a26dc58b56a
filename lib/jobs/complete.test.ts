import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { applyWorkerBatch, type BatchItem } from "./complete";
import { checkJobIntegrity, eventsOf, getJob, newJob, operator, rejectionsOf, runJob, worker } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const item = (job: Pick<JobRow, "id" | "attempt" | "state" | "stateVersion">, over: Partial<BatchItem> = {}): BatchItem => ({
  jobId: job.id,
  event: "finish",
  actor: worker("w-1"),
  attempt: job.attempt,
  expected: { state: job.state, version: job.stateVersion },
  ...over,
});

describe("the batched worker write path", () => {
  it("finishes, fails and abandons many jobs in one statement, with runs and events consistent", async () => {
    const a = await runJob(t.pool, await newJob(t.pool));
    const b = await runJob(t.pool, await newJob(t.pool));
    const c = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 1 }));
    const retryAt = new Date(Date.now() + 60_000);
    const out = await applyWorkerBatch(t.pool, "w-1", [
      item(a, { result: { rows: 3 } }),
      item(b, { event: "fail", error: { class: "Boom", message: "no" }, retryAt }),
      item(c, { event: "abandon", error: { class: "Fatal", message: "gone" } }),
    ]);
    expect(out.map((r) => r?.state)).toEqual(["succeeded", "retry_wait", "dead"]);
    expect((await getJob(t.pool, b.id)).notBefore.getTime()).toBe(retryAt.getTime());
    const [run] = await execute(t.pool, sql`SELECT outcome, result FROM job_runs WHERE job_id = ${a.id}`);
    expect(run).toMatchObject({ outcome: "succeeded", result: { rows: 3 } });
    const [failed] = await execute(t.pool, sql`SELECT outcome, error_class FROM job_runs WHERE job_id = ${b.id}`);
    expect(failed).toMatchObject({ outcome: "failed", errorClass: "Boom" });
    expect((await eventsOf(t.pool, b.id)).at(-1)).toMatchObject({ event: "fail", toState: "retry_wait", actorId: "w-1" });
    for (const j of [a, b, c]) expect(await checkJobIntegrity(t.pool, j.id)).toEqual([]);
  });

  it("starts claimed jobs in a batch", async () => {
    const job = await newJob(t.pool);
    const { claim } = await import("./claim");
    const [claimed] = await claim(t.pool, { workerId: "w-1", queues: [job.queue], limit: 1 });
    const [r] = await applyWorkerBatch(t.pool, "w-1", [item(claimed!, { event: "start" })]);
    expect(r?.state).toBe("running");
    const [run] = await execute(t.pool, sql`SELECT started_at FROM job_runs WHERE job_id = ${job.id}`);
    expect(run?.startedAt).toBeInstanceOf(Date);
  });

  it("returns the rows that lost their guard, writes nothing for them; transition() then records why", async () => {
    const won = await runJob(t.pool, await newJob(t.pool));
    const lost = await runJob(t.pool, await newJob(t.pool));
    const stale = await runJob(t.pool, await newJob(t.pool));
    // An operator cancels one first; another is reported by a worker that does not hold the lease.
    await transition(t.pool, { jobId: lost.id, event: "cancel", actor: operator });
    const out = await applyWorkerBatch(t.pool, "w-1", [item(won), item(lost), item(stale, { attempt: stale.attempt + 1 })]);
    expect(out.map((r) => (r ? r.state : null))).toEqual(["succeeded", null, null]);
    expect((await getJob(t.pool, lost.id)).state).toBe("cancelling");
    expect((await getJob(t.pool, stale.id)).state).toBe("running");
    const refused = await transition(t.pool, item(lost));
    expect(refused).toMatchObject({ ok: false, kind: "conflict" });
    expect(await rejectionsOf(t.pool, lost.id)).toHaveLength(1);
    for (const j of [won, lost, stale]) expect(await checkJobIntegrity(t.pool, j.id)).toEqual([]);
  });
});
