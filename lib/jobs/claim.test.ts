import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "./claim";
import { enqueue } from "./enqueue";
import { api, checkJobIntegrity, eventsOf, getJob } from "./test-helpers";
import { transition } from "./transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

async function queueOf(n: number) {
  const queue = `claim-${Math.random().toString(36).slice(2, 8)}`;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { job } = await enqueue(
      t.pool,
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue, priority: i },
      api,
    );
    ids.push(job.id);
  }
  return { queue, ids };
}

describe("claim and start in one statement", () => {
  it("starts the first `startNow` jobs in claim order and leaves the rest claimed, history complete", async () => {
    const { queue, ids } = await queueOf(3);
    const got = await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 3, startNow: 2 });
    expect(got.map((j) => [j.id, j.state, j.stateVersion, j.attempt])).toEqual([
      [ids[0], "running", 2, 1],
      [ids[1], "running", 2, 1],
      [ids[2], "claimed", 1, 1],
    ]);
    const events = await eventsOf(t.pool, ids[0]!);
    expect(events.map((e) => [e.event, e.fromState, e.toState, e.stateVersion, e.attempt])).toEqual([
      ["submit", null, "queued", 0, 0],
      ["claim", "queued", "claimed", 1, 1],
      ["start", "claimed", "running", 2, 1],
    ]);
    // The open attempt is on the live row; the job_runs view shows it like a closed one.
    const [run] = await execute(t.pool, sql`SELECT worker_id, claimed_at, started_at, outcome FROM job_runs WHERE job_id = ${ids[0]!}`);
    expect(run!.startedAt).toEqual(run!.claimedAt);
    expect(run).toMatchObject({ workerId: "w-1", outcome: null });
    const [prefetched] = await execute(t.pool, sql`SELECT started_at FROM job_runs WHERE job_id = ${ids[2]!}`);
    expect(prefetched!.startedAt).toBeNull();
    for (const id of ids) expect(await checkJobIntegrity(t.pool, id)).toEqual([]);
    // The running job finishes like any other; the claimed one still needs its own start.
    const fin = await transition(t.pool, {
      jobId: ids[0]!,
      event: "finish",
      actor: { kind: "worker", id: "w-1" },
      attempt: 1,
      expected: { state: "running", version: 2 },
    });
    expect(fin.ok && fin.job.state).toBe("succeeded");
    const early = await transition(t.pool, { jobId: ids[2]!, event: "finish", actor: { kind: "worker", id: "w-1" }, attempt: 1 });
    expect(early.ok).toBe(false);
  });

  it("claims without starting by default, and never starts more than it claims", async () => {
    const { queue, ids } = await queueOf(2);
    expect((await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 1 })).map((j) => j.state)).toEqual(["claimed"]);
    expect((await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 1, startNow: 5 })).map((j) => j.state)).toEqual(["running"]);
    expect((await getJob(t.pool, ids[1]!)).stateVersion).toBe(2);
  });
});
