import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "./claim";
import { enqueue } from "./enqueue";
import { workerRound } from "./round";
import { api, worker } from "./test-helpers";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const submit = (queue: string) =>
  enqueue(t.pool, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue }, api).then((r) => r.job);

describe("a worker round (reports and a claim in one statement)", () => {
  it("claims before it writes its reports, so a claim sees the queue as of the statement's start and no longer", async () => {
    // Row triggers number every write to jobs_live in the order the statement makes it: the claim's
    // UPDATEs of queued jobs and the reports' DELETEs of finished ones.
    await execute(
      t.pool,
      sql.raw(`
      CREATE TEMP SEQUENCE write_seq;
      CREATE TABLE round_writes (seq bigint, op text, job_id uuid);
      CREATE FUNCTION note_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO round_writes VALUES (nextval('write_seq'), TG_OP, OLD.id);
          RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
        END $$;
      CREATE TRIGGER note_write BEFORE UPDATE OR DELETE ON jobs_live FOR EACH ROW EXECUTE FUNCTION note_write();`),
    );
    const queue = `round-order-${Math.random().toString(36).slice(2, 7)}`;
    for (let i = 0; i < 6; i++) await submit(queue);
    const held = await claim(t.pool, { workerId: "w-1", queues: [queue], limit: 3, startNow: 3 });
    expect(held).toHaveLength(3);
    await execute(t.pool, sql`DELETE FROM round_writes`);

    const r = await workerRound(
      t.pool,
      "w-1",
      held.map((j) => ({
        jobId: j.id,
        event: "finish" as const,
        actor: worker("w-1"),
        attempt: j.attempt,
        expected: { state: "running" as const, version: j.stateVersion },
      })),
      { workerId: "w-1", queues: [queue], limit: 3, startNow: 3 },
    );
    expect(r.reports.map((m) => m?.state)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(r.claimed).toHaveLength(3);
    const writes = await execute<{ op: string }>(t.pool, sql`SELECT op FROM round_writes ORDER BY seq`);
    expect(writes.map((w) => w.op)).toEqual(["UPDATE", "UPDATE", "UPDATE", "DELETE", "DELETE", "DELETE"]);
  });
});
