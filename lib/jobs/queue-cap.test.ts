import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "./claim";
import { enqueue } from "./enqueue";
import { changeQueue } from "./queues";
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
});
