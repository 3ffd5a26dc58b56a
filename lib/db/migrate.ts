import path from "node:path";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { sql } from "drizzle-orm";
import { closeDb, connect, type Pool } from "./client";
import { execute } from "./drizzle";

/**
 * The PostgreSQL majors Jobscope supports: the oldest is tested in CI (`npm run test:pg-oldest`),
 * the newest is the embedded server. README.md and docs/operations.md say the same.
 */
export const SUPPORTED_PG = { oldest: 15, newest: 18 } as const;

export class UnsupportedServerError extends Error {
  constructor(readonly version: string) {
    super(
      `PostgreSQL ${version} is not supported: Jobscope needs PostgreSQL ${SUPPORTED_PG.oldest} or later ` +
        `(tested on ${SUPPORTED_PG.oldest} to ${SUPPORTED_PG.newest}); nothing was migrated.`,
    );
    this.name = "UnsupportedServerError";
  }
}

/** Refuse a server older than `oldest` before anything is changed; a newer major than tested gets a warning. */
export async function checkServerVersion(db: Pool, oldest: number = SUPPORTED_PG.oldest): Promise<number> {
  const [row] = await execute<{ num: string; version: string }>(
    db,
    sql`
    SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version`,
  );
  const major = Math.floor(Number(row?.num ?? 0) / 10_000);
  if (major < oldest) throw new UnsupportedServerError(row?.version ?? "(unknown)");
  if (major > SUPPORTED_PG.newest) {
    console.warn(`[jobscope] PostgreSQL ${row?.version} is newer than the newest tested major (${SUPPORTED_PG.newest}).`);
  }
  return major;
}

/**
 * Apply the committed migrations in `drizzle/` to the database at `url`, after checking the
 * server's version (`oldest` is for tests: a server is refused if it is older than that; tests also
 * migrate from a copy of `drizzle/` with a shortened journal, `migrationsFolder`).
 */
export async function migrateDatabase(url: string, opts: { oldest?: number; migrationsFolder?: string } = {}) {
  // snake_case: the migrator reads its own table's created_at to know which migrations are applied.
  const db = connect(url, { max: 1, snakeCase: true });
  try {
    await checkServerVersion(db, opts.oldest);
    await migrate(db, { migrationsFolder: opts.migrationsFolder ?? path.resolve("drizzle") });
  } finally {
    await closeDb(db);
  }
}
