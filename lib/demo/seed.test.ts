import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { checkJobIntegrity } from "../jobs/test-helpers";
import { seedDemo } from "./seed";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ tenants: [] });

describe("the demo seed", () => {
  it("writes consistent multi-attempt histories through the write path, in every resting state", async () => {
    const { slowExportId } = await seedDemo(t.pool, { jobs: 400 });
    const states = await execute<{ state: string }>(t.pool, sql`SELECT DISTINCT state FROM jobs ORDER BY state`);
    expect(states.map((s) => s.state)).toEqual(expect.arrayContaining(["queued", "paused", "retry_wait", "succeeded", "dead", "cancelled"]));
    const outcomes = await execute<{ outcome: string }>(t.pool, sql`SELECT DISTINCT outcome FROM job_runs WHERE outcome IS NOT NULL`);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["abandoned", "cancelled", "failed", "lease_expired", "succeeded"]);
    const ids = await execute<{ id: string }>(t.pool, sql`SELECT id FROM jobs`);
    const problems = (await Promise.all(ids.map((j) => checkJobIntegrity(t.pool, j.id)))).flat();
    expect(problems).toEqual([]);

    const runs = await execute(
      t.pool,
      sql`SELECT attempt, worker_id, outcome, error_class FROM job_runs WHERE job_id = ${slowExportId} ORDER BY attempt`,
    );
    expect(runs.map((r) => `${r.attempt}:${r.workerId}:${r.outcome}`)).toEqual([
      "1:w-14:lease_expired",
      "2:w-03:failed",
      "3:w-07:failed",
      "4:w-05:succeeded",
    ]);
  });
});
