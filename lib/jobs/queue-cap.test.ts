import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "./claim";
import { enqueue } from "./enqueue";
import { changeQueue, reconcileQueueCounts } from "./queues";
import { workerRound } from "./round";
import { api, heldBy, operator } from "./test-helpers";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const submit = (queue: string) =>
  enqueue(t.pool, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue }, api).then((r) => r.job);
const counts = async (queue: string) => {
  const [row] = await execute<{ leased: number; actual: number }>(
    t.pool,
    sql`
    SELECT leased, (SELECT count(*)::int FROM jobs_live WHERE queue = ${queue} AND state IN ('claimed', 'running', 'cancelling')) AS actual FROM queues WHERE name = ${queue}`,
  );
  return row!;
};

describe("a capped queue's count of slots taken", () => {
  it("stays true when one worker round both reports a finished job and claims the next (one statement)", async () => {
    const queue = `cap-round-${Math.random().toString(36).slice(2, 7)}`;
    for (let i = 0; i < 6; i++) await submit(queue);
    await changeQueue(t.pool, queue, { kind: "limit", limit: 3 }, operator);
    const held = await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 2, startNow: 2 });
    expect(await counts(queue)).toEqual({ leased: 2, actual: 2 });
    const done = held[0]!;
    const r = await workerRound(t.pool, "w-1", [{ ...heldBy(done), event: "finish" }], { workerId: "w-1", queues: [queue], limit: 5, startNow: 5 });
    expect(r.reports[0]).toMatchObject({ state: "succeeded" });
    // The cap had one free slot when the round read it (its own finish is counted back after).
    expect(r.claimed).toHaveLength(1);
    expect(await counts(queue)).toEqual({ leased: 2, actual: 2 });
  });

  it("a lean claim takes nothing from a capped queue and says so; from an uncapped one it claims and counts nothing", async () => {
    const capped = `cap-lean-${Math.random().toString(36).slice(2, 7)}`;
    const open = `open-lean-${Math.random().toString(36).slice(2, 7)}`;
    for (let i = 0; i < 3; i++) await submit(capped);
    for (let i = 0; i < 3; i++) await submit(open);
    await changeQueue(t.pool, capped, { kind: "limit", limit: 2 }, operator);
    const lean = { workerId: "w-2", limit: 5, startNow: 5, lean: true };
    const both = await workerRound(t.pool, "w-2", [], { ...lean, queues: [capped, open] });
    expect(both.capped).toBe(true);
    expect(both.claimed.map((j) => j.queue)).toEqual([open, open, open]);
    expect(await counts(capped)).toEqual({ leased: 0, actual: 0 });
    // The next claim, a full one, counts the capped queue's slots and says it is capped.
    const full = await workerRound(t.pool, "w-2", [], { ...lean, lean: false, queues: [capped, open] });
    expect(full.capped).toBe(true);
    expect(full.claimed.map((j) => j.queue)).toEqual([capped, capped]);
    expect(await counts(capped)).toEqual({ leased: 2, actual: 2 });
    // Once the cap is lifted, a full claim says so.
    await changeQueue(t.pool, capped, { kind: "limit", limit: null }, operator);
    const freed = await workerRound(t.pool, "w-2", [], { ...lean, lean: false, queues: [capped] });
    expect(freed.capped).toBe(false);
    expect(freed.claimed).toHaveLength(1);
  });

  // An unbatched worker of one queue claims it directly (ClaimForm `oneQueue`): the same answers.
  it("a lean claim of one queue takes nothing from it while it is paused or capped, and says when it is capped", async () => {
    const queue = `one-lean-${Math.random().toString(36).slice(2, 7)}`;
    for (let i = 0; i < 3; i++) await submit(queue);
    const lean = { workerId: "w-4", queues: [queue], limit: 1, startNow: 1, lean: true };
    await changeQueue(t.pool, queue, { kind: "pause" }, operator);
    expect(await workerRound(t.pool, "w-4", [], lean, true)).toMatchObject({ capped: false, claimed: [] });
    await changeQueue(t.pool, queue, { kind: "resume" }, operator);
    await changeQueue(t.pool, queue, { kind: "limit", limit: 2 }, operator);
    expect(await workerRound(t.pool, "w-4", [], lean, true)).toMatchObject({ capped: true, claimed: [] });
    expect(await counts(queue)).toEqual({ leased: 0, actual: 0 });
    await changeQueue(t.pool, queue, { kind: "limit", limit: null }, operator);
    const open = await workerRound(t.pool, "w-4", [], lean, true);
    expect(open).toMatchObject({ capped: false, claimed: [expect.objectContaining({ queue, state: "running" })] });
  });

  it("a worker whose queue gets a cap while it runs keeps within it", async () => {
    const queue = `cap-worker-${Math.random().toString(36).slice(2, 7)}`;
    for (let i = 0; i < 8; i++) await submit(queue);
    // The worker's first claim is lean (no cap yet); the cap comes between two of its rounds.
    const first = await workerRound(t.pool, "w-3", [], { workerId: "w-3", queues: [queue], limit: 1, startNow: 1, lean: true });
    expect(first).toMatchObject({ capped: false, claimed: [expect.anything()] });
    await changeQueue(t.pool, queue, { kind: "limit", limit: 2 }, operator);
    expect(await counts(queue)).toEqual({ leased: 1, actual: 1 });
    const next = await workerRound(t.pool, "w-3", [{ ...heldBy(first.claimed[0]!, "w-3"), event: "finish" }], {
      workerId: "w-3",
      queues: [queue],
      limit: 4,
      startNow: 4,
      lean: true,
    });
    expect(next.reports[0]).toMatchObject({ state: "succeeded" });
    expect(next).toMatchObject({ capped: true, claimed: [] });
    // The lean round did not count its finish back: the count is high by one (never low) until the
    // supervisor's re-count, and the cap is never exceeded.
    expect(await counts(queue)).toEqual({ leased: 1, actual: 0 });
    await reconcileQueueCounts(t.pool);
    expect(await counts(queue)).toEqual({ leased: 0, actual: 0 });
  });
});
