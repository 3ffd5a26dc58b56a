import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { setupTestDb } from "./test-db";
import { execute } from "./drizzle";

const t = setupTestDb({ max: 1, tenants: [] });

/** The connection's named statements whose text holds `marker`. */
async function preparedHolding(marker: string): Promise<number> {
  const [r] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE ${`%${marker}%`}`);
  return r!.n;
}

describe("execute()", () => {
  it("keeps a statement as one named statement of its connection, with or without parameters", async () => {
    // The console's tab counts have no parameters: they were planned afresh on every poll.
    for (let i = 0; i < 3; i++) await execute(t.pool, sql`SELECT 'bare-marker' AS m`);
    for (let i = 0; i < 3; i++) await execute(t.pool, sql`SELECT 'bound-marker' AS m, ${i}::int AS i`);
    expect(await preparedHolding("bare-marker")).toBe(1);
    expect(await preparedHolding("bound-marker")).toBe(1);
  });

  it("runs a script of several statements, unprepared", async () => {
    await execute(t.pool, sql.raw(`CREATE TEMP TABLE script_a (x int); INSERT INTO script_a VALUES (1), (2); -- script-marker`));
    const rows = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM script_a`);
    expect(rows[0]!.n).toBe(2);
    expect(await preparedHolding("script-marker")).toBe(0);
  });

  it("answers a kept statement after its table's columns changed", async () => {
    await execute(t.pool, sql`CREATE TABLE reshaped (a int)`);
    await execute(t.pool, sql`INSERT INTO reshaped VALUES (1)`);
    expect(await execute(t.pool, sql`SELECT * FROM reshaped`)).toEqual([{ a: 1 }]);
    await execute(t.pool, sql`ALTER TABLE reshaped ADD COLUMN b int DEFAULT 2`);
    expect(await execute(t.pool, sql`SELECT * FROM reshaped`)).toEqual([{ a: 1, b: 2 }]);
  });
});
