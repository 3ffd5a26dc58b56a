import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "./claim";
import { changeQueue, reconcileQueueCounts } from "./queues";
import { getJob, heldBy, newJob, operator } from "./test-helpers";
import { transition } from "./transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
const a = t.connect({ max: 1 });
const b = t.connect({ max: 1 });

let n = 0;
const queueName = () => `qs-${++n}-${Math.random().toString(36).slice(2, 7)}`;
const submit = (queue: string, tenantId = "acme") => newJob(t.pool, { queue, tenantId });

describe("queues", () => {
  it("a paused queue gives no job to any worker, changes no job, and lets what runs finish", async () => {
    const queue = queueName();
    await submit(queue);
    const [running] = await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 1, startNow: 1 });
    const waiting = await submit(queue);
    await changeQueue(t.pool, queue, { kind: "pause" }, operator);
    expect(await claim(t.pool, { workerId: "w-2", queues: [queue], limit: 10, startNow: 10 })).toEqual([]);
    expect(await getJob(t.pool, waiting.id)).toMatchObject({ state: "queued", stateVersion: 0 });
    const done = await transition(t.pool, { ...heldBy(running!), event: "finish" });
    expect(done.ok).toBe(true);
    await changeQueue(t.pool, queue, { kind: "resume" }, operator);
    expect((await claim(t.pool, { workerId: "w-2", queues: [queue], limit: 10, startNow: 10 })).map((j) => j.id)).toEqual([waiting.id]);
    const events = await execute<{ event: string; actorId: string }>(
      t.pool,
      sql`SELECT event, actor_id FROM queue_events WHERE queue = ${queue} ORDER BY id`,
    );
    expect(events).toEqual([
      { event: "pause", actorId: operator.id },
      { event: "resume", actorId: operator.id },
    ]);
  });

  it("a cap holds across workers claiming at once: no two take the last slot", async () => {
    const queue = queueName();
    for (let i = 0; i < 10; i++) await submit(queue);
    await changeQueue(t.pool, queue, { kind: "limit", limit: 3 }, operator);
    for (let round = 0; round < 5; round++) {
      const [x, y] = await Promise.all([
        claim(a, { workerId: "w-a", queues: [queue], limit: 5, startNow: 5 }),
        claim(b, { workerId: "w-b", queues: [queue], limit: 5, startNow: 5 }),
      ]);
      const [leased] = await execute<{ n: number }>(
        t.pool,
        sql`SELECT count(*)::int AS n FROM jobs_live WHERE queue = ${queue} AND state IN ('claimed', 'running', 'cancelling')`,
      );
      expect(leased!.n).toBeLessThanOrEqual(3);
      // Finish one of what was taken: its slot comes back.
      const one = [...x, ...y][0];
      if (one) await transition(t.pool, { ...heldBy(one, x.includes(one) ? "w-a" : "w-b"), event: "finish" });
    }
    const [row] = await execute<{ leased: number }>(t.pool, sql`SELECT leased FROM queues WHERE name = ${queue}`);
    const [actual] = await execute<{ n: number }>(
      t.pool,
      sql`SELECT count(*)::int AS n FROM jobs_live WHERE queue = ${queue} AND state IN ('claimed', 'running', 'cancelling')`,
    );
    expect(row!.leased).toBe(actual!.n);
  });

  it("paused jobs give their slots back: a cap never stalls a queue on jobs an operator paused, and a resume takes its slot again", async () => {
    const queue = queueName();
    for (let i = 0; i < 6; i++) await submit(queue);
    const held = await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 3, startNow: 3 });
    expect(held).toHaveLength(3);
    const paused = [];
    for (const j of held) {
      const r = await transition(t.pool, { jobId: j.id, event: "pause", actor: operator, expected: { state: "running", version: j.stateVersion } });
      expect(r.ok).toBe(true);
      if (r.ok) paused.push(r.job);
    }
    // The limit is set while three paused jobs still hold their leases: none of them holds a slot.
    await changeQueue(t.pool, queue, { kind: "limit", limit: 3 }, operator);
    const slots = async () => (await execute<{ leased: number }>(t.pool, sql`SELECT leased FROM queues WHERE name = ${queue}`))[0]!.leased;
    expect(await slots()).toBe(0);
    const next = await claim(t.pool, { workerId: "w-2", queues: [queue], limit: 5, startNow: 5 });
    expect(next).toHaveLength(3);
    expect(await slots()).toBe(3);
    // A resume takes a slot even past the cap (an operator asked for it); the next claim then waits.
    const resumed = await transition(t.pool, {
      jobId: paused[0]!.id,
      event: "resume",
      actor: operator,
      expected: { state: "paused", version: paused[0]!.stateVersion },
    });
    expect(resumed.ok).toBe(true);
    expect(await slots()).toBe(4);
    expect(await claim(t.pool, { workerId: "w-2", queues: [queue], limit: 5, startNow: 5 })).toEqual([]);
    // A pause gives its slot back, and the supervisor's re-count agrees with the write path's count.
    const again = await transition(t.pool, { jobId: paused[0]!.id, event: "pause", actor: operator });
    expect(again.ok).toBe(true);
    expect(await slots()).toBe(3);
    await reconcileQueueCounts(t.pool);
    expect(await slots()).toBe(3);
  });

  it("the supervisor's re-count puts a drifted cap count back to the live rows", async () => {
    const queue = queueName();
    await submit(queue);
    await changeQueue(t.pool, queue, { kind: "limit", limit: 2 }, operator);
    await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 1, startNow: 1 });
    await execute(t.pool, sql`UPDATE queues SET leased = 2 WHERE name = ${queue}`);
    expect(await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 1, startNow: 1 })).toEqual([]);
    expect(await reconcileQueueCounts(t.pool)).toBeGreaterThanOrEqual(1);
    expect((await execute<{ leased: number }>(t.pool, sql`SELECT leased FROM queues WHERE name = ${queue}`))[0]!.leased).toBe(1);
  });

  it("a fair queue takes a tenant's single job before the rest of another tenant's burst", async () => {
    const queue = queueName();
    await changeQueue(t.pool, queue, { kind: "fair", fair: true }, operator);
    for (let i = 0; i < 40; i++) await submit(queue, "acme");
    const late = await submit(queue, "globex");
    const first = await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 3, startNow: 3 });
    expect(first.map((j) => j.id)).toContain(late.id);
    // Without fairness the same burst keeps it waiting behind all forty.
    const plain = queueName();
    for (let i = 0; i < 40; i++) await submit(plain, "acme");
    const behind = await submit(plain, "globex");
    const got = await claim(t.pool, { workerId: "w-1", queues: [plain], limit: 3, startNow: 3 });
    expect(got.map((j) => j.id)).not.toContain(behind.id);
  });

  it("refuses a bad name or cap with a clear error and writes nothing", async () => {
    await expect(changeQueue(t.pool, "Bad Name!", { kind: "pause" }, operator)).rejects.toThrow(/not a queue name/);
    await expect(changeQueue(t.pool, queueName(), { kind: "limit", limit: 0 }, operator)).rejects.toThrow(/whole number/);
    const [c] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM queues WHERE name = 'Bad Name!'`);
    expect(c!.n).toBe(0);
  });
});
