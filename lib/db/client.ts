import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Sql = postgres.Sql;

/**
 * The database this process talks to: `DATABASE_URL`, or the embedded
 * PostgreSQL that a running `npm start` advertises under `.data/`.
 */
export function databaseUrl(): string {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return fromEnv;
  const advertised = path.resolve(".data/embedded-url");
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

type Handles = { sql: Sql; db: ReturnType<typeof drizzle<typeof schema>> };
const g = globalThis as unknown as { __jobscope?: Handles };

/**
 * The process's one connection pool, created on first use. Kept on globalThis
 * so Next.js hot reloads in development do not open a new pool each time.
 */
export function handles(): Handles {
  if (!g.__jobscope) {
    const sql = connect(databaseUrl(), { appName: process.env.JOBSCOPE_ROLE ?? "jobscope" });
    g.__jobscope = { sql, db: drizzle(sql, { schema }) };
  }
  return g.__jobscope;
}

export async function closeHandles() {
  const h = g.__jobscope;
  g.__jobscope = undefined;
  await h?.sql.end({ timeout: 5 });
}
