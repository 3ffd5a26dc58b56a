import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { connect, type Sql } from "./client";
import { ensureDatabase } from "./embedded";
import { roleUrl, type RuntimeRole } from "./roles";

const TEMPLATE_DB = "jobscope_test_template";
/** The test server's deployment secret: the runtime roles' passwords derive from it. */
export const TEST_SECRET = "jobscope-test-secret";

export type TestDb = {
  /** The owner's (superuser's) URL: row-level security does not apply to it. */
  url: string;
  sql: Sql;
  /** This database as a runtime role (drizzle/0005_identity.sql), subject to row-level security. */
  roleUrl: (role: RuntimeRole) => string;
  close: () => Promise<void>;
};

/** A new database copied from the migrated template, for one test file. */
export async function createTestDb(opts: { max?: number } = {}): Promise<TestDb> {
  const adminUrl = inject("templateAdminUrl");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const url = await ensureDatabase(adminUrl, name, TEMPLATE_DB);
  const sql = connect(url, { max: opts.max ?? 10 });
  return {
    url,
    sql,
    roleUrl: (role) => roleUrl(url, TEST_SECRET, role),
    close: async () => {
      await sql.end({ timeout: 5 });
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
