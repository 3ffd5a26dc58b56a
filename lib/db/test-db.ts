import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, inject } from "vitest";
import { seedTenants } from "../jobs/test-helpers";
import { closeDb, closePool, connect, type Pool } from "./client";
import { ensureDatabase } from "./embedded";
import { roleUrl, type RuntimeRole } from "./roles";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

const TEMPLATE_DB = "jobscope_test_template";
/** The test server's deployment secret: the runtime roles' passwords derive from it. */
export const TEST_SECRET = "jobscope-test-secret";

export type TestDb = {
  /** The owner's (superuser's) URL: row-level security does not apply to it. */
  url: string;
  /** A pool on it as the owner. */
  pool: Pool;
  /** This database as a runtime role (drizzle/0005_identity.sql), subject to row-level security. */
  roleUrl: (role: RuntimeRole) => string;
  /** Another pool on it, as the owner or as `role`; it is ended with the others after the tests. */
  connect: (opts?: { role?: RuntimeRole; max?: number; appName?: string }) => Pool;
};

/**
 * A database of its own for the tests of one file (or describe block): copied from the migrated
 * template before they run, with `tenants` seeded (acme and globex unless told), and dropped after
 * them, once every pool opened on it is ended. Its URL and pools exist from the start (a pool
 * connects on its first query), so a test file can hold them in constants. With `consolePool`, the
 * console's own pool (`pool()`, lib/db/client.ts) runs on it as the app role: DATABASE_URL points
 * at it before the tests, and that pool is closed after them.
 */
export function setupTestDb(opts: { max?: number; tenants?: string[]; consolePool?: boolean } = {}): TestDb {
  const adminUrl = inject("templateAdminUrl");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db: TestDb = {
    url: url.toString(),
    pool: connect(url.toString(), { max: opts.max ?? 10 }),
    roleUrl: (role) => roleUrl(db.url, TEST_SECRET, role),
    connect: ({ role, ...poolOpts } = {}) => {
      const pool = connect(role ? db.roleUrl(role) : db.url, poolOpts);
      pools.push(pool);
      return pool;
    },
  };
  const pools = [db.pool];
  beforeAll(async () => {
    await ensureDatabase(adminUrl, name, TEMPLATE_DB);
    await seedTenants(db.pool, opts.tenants);
    if (opts.consolePool) process.env.DATABASE_URL = db.roleUrl("app");
  });
  afterAll(async () => {
    if (opts.consolePool) await closePool();
    await Promise.all(pools.map((pool) => closeDb(pool)));
    const admin = connect(adminUrl, { max: 1 });
    await execute(admin, sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    await closeDb(admin);
  });
  return db;
}
