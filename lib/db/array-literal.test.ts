import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { arrayLiteral, execute, prepared } from "./drizzle";
import { setupTestDb } from "./test-db";

const t = setupTestDb({ max: 2, tenants: [] });

describe("arrayLiteral (array parameters of prepared statements)", () => {
  it("reads back in PostgreSQL as the same elements, whatever the text holds", async () => {
    const texts = ["plain", 'with "quotes"', "back\\slash", "a,b", "{braces}", "NULL", "null", "", " padded ", "ünïcødé ✓", "end\\", '\\"'];
    // Element by element: postgres.js reads a NULL element of an array back as "NULL" (text) or NaN.
    const rows = await execute<{ x: string | null }>(
      t.pool,
      sql`SELECT x FROM unnest(${arrayLiteral([...texts, null])}::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n`,
    );
    expect(rows.map((r) => r.x)).toEqual([...texts, null]);
    const ints = await execute<{ x: number | null }>(
      t.pool,
      sql`SELECT x FROM unnest(${arrayLiteral([3, -1, 0, null, 2147483647])}::int[]) WITH ORDINALITY AS u(x, n) ORDER BY n`,
    );
    expect(ints.map((r) => r.x)).toEqual([3, -1, 0, null, 2147483647]);
  });

  it("is passed through as written to a prepared statement's array parameter", async () => {
    const ids = ["01a23b37-b3d4-702b-8c1a-f2f8235366bf", "01a23b37-b3d4-702b-8c1a-f2f8235366c0"];
    const statement = prepared<{ n: number; last: string }>(
      t.pool,
      "array_literal_test",
      () => sql`
      SELECT count(*)::int AS n, max(x::text) AS last FROM unnest(${sql.placeholder("ids")}::uuid[]) AS x`,
    );
    expect(await statement({ ids: arrayLiteral(ids) })).toEqual([{ n: 2, last: ids[1] }]);
    expect(await statement({ ids: arrayLiteral([]) })).toEqual([{ n: 0, last: null }]);
  });

  it("refuses a number it cannot write", () => {
    expect(() => arrayLiteral([Number.NaN])).toThrow(RangeError);
    expect(() => arrayLiteral([Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});
