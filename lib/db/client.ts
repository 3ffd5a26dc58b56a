import { existsSync, readFileSync } from "node:fs";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { DEFAULT_DATA_DIR, urlFileFor } from "./embedded";
import * as schema from "./schema";

export type Sql = postgres.Sql;

/**
 * The database this process talks to: `DATABASE_URL`, or the embedded
 * PostgreSQL that a running `npm start` advertises under `.data/`.
 */
export function databaseUrl(): string {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return fromEnv;
  const advertised = urlFileFor(DEFAULT_DATA_DIR);
  if (existsSync(advertised)) return readFileSync(advertised, "utf8").trim();
  throw new Error("DATABASE_URL is not set and no embedded PostgreSQL is running: run `npm start`, or set DATABASE_URL.");
}

export function connect(url: string, opts: { max?: number; appName?: string } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: opts.appName ?? "jobscope" },
    // snake_case columns arrive as camelCase keys.
    transform: { column: { from: postgres.toCamel } },
  });
}

type Db = ReturnType<typeof drizzle<typeof schema>>;
const g = globalThis as unknown as { __jobscope?: { sql: Sql; db?: Db; dbSql?: Sql } };
const appName = () => process.env.JOBSCOPE_ROLE ?? "jobscope";

/**
 * The process's connection pool, created on first use. Kept on globalThis so
 * Next.js hot reloads in development do not open a new pool each time.
 */
export function pool(): Sql {
  g.__jobscope ??= { sql: connect(databaseUrl(), { appName: appName() }) };
  return g.__jobscope.sql;
}

/**
 * The pool, and drizzle on a small pool of its own: drizzle's postgres-js
 * driver replaces a pool's timestamp and JSON serializers with pass-throughs,
 * which would break the write path's Date and JSON parameters on a shared pool.
 */
export function handles(): { sql: Sql; db: Db } {
  const sql = pool();
  const h = g.__jobscope!;
  if (!h.db) {
    h.dbSql = connect(databaseUrl(), { appName: `${appName()}-drizzle`, max: 4 });
    h.db = drizzle(h.dbSql, { schema });
  }
  return { sql, db: h.db };
}

export async function closeHandles() {
  const h = g.__jobscope;
  g.__jobscope = undefined;
  await Promise.all([h?.sql.end({ timeout: 5 }), h?.dbSql?.end({ timeout: 5 })]);
}
