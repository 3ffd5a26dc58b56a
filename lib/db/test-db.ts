import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { connect, type Sql } from "./client";
import { ensureDatabase } from "./embedded";

const TEMPLATE_DB = "jobscope_test_template";

export type TestDb = { url: string; sql: Sql; close: () => Promise<void> };

/** A new database copied from the migrated template, for one test file. */
export async function createTestDb(opts: { max?: number } = {}): Promise<TestDb> {
  const adminUrl = inject("templateAdminUrl");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const url = await ensureDatabase(adminUrl, name, TEMPLATE_DB);
  const sql = connect(url, { max: opts.max ?? 10 });
  return {
    url,
    sql,
    close: async () => {
      await sql.end({ timeout: 5 });
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
