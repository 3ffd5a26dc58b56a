import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { ensureDatabase } from "./embedded";
import { checkServerVersion, migrateDatabase, SUPPORTED_PG, UnsupportedServerError } from "./migrate";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";
import { closeDb, connect } from "./client";

describe("the server's version is checked before migrating, so an old server is refused before anything changes", () => {
  it("refuses a server older than the oldest supported major with one sentence, and changes nothing", async () => {
    const url = await ensureDatabase(inject("templateAdminUrl"), `t_version_${process.pid}_${Date.now()}`);
    const db = connect(url, { max: 1 });
    try {
      const [{ major } = { major: 0 }] = await execute<{ major: number }>(
        db,
        sql`SELECT current_setting('server_version_num')::int / 10000 AS major`,
      );
      // This server pretends to be too old: the oldest supported major is set just above it.
      const err = await migrateDatabase(url, { oldest: major + 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedServerError);
      expect((err as Error).message).toMatch(
        /^PostgreSQL \S+ is not supported: Jobscope needs PostgreSQL \d+ or later \(tested on \d+ to \d+\); nothing was migrated\.$/,
      );
      const [tables] = await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
      expect(tables?.n).toBe(0);
      const [drizzleSchema] = await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'drizzle'`);
      expect(drizzleSchema?.n).toBe(0);
    } finally {
      await closeDb(db);
    }
  });

  it("accepts the server the tests run on, which is a supported major", async () => {
    const db = connect(inject("templateAdminUrl"), { max: 1 });
    try {
      const major = await checkServerVersion(db);
      expect(major).toBeGreaterThanOrEqual(SUPPORTED_PG.oldest);
      expect(major).toBeLessThanOrEqual(SUPPORTED_PG.newest);
    } finally {
      await closeDb(db);
    }
  });
});
