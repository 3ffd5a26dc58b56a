import { existsSync, readFileSync } from "node:fs";
import postgres from "postgres";
import { DEFAULT_DATA_DIR, urlFileFor } from "./embedded";

export type Sql = postgres.Sql;
/** Anything that runs queries: the pool, or a transaction (a tenant-scoped request, a direct-write savepoint). */
export type Db = postgres.ISql;

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

/**
 * `genericPlans`: the pool's sessions reuse one plan per prepared statement
 * (plan_cache_mode = force_generic_plan). The write path's statements are large: planning one
 * costs milliseconds, and PostgreSQL re-plans a statement whose custom plans look cheaper than its
 * generic one on every execution — the case of a one-job statement (drizzle/0012_narrow_hot_path.sql
 * sets it for the worker role; lib/jobs/plans.test.ts checks the generic plans).
 */
export function connect(url: string, opts: { max?: number; appName?: string; genericPlans?: boolean } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: opts.appName ?? "jobscope", ...(opts.genericPlans && { plan_cache_mode: "force_generic_plan" }) },
    // snake_case columns arrive as camelCase keys.
    transform: { column: { from: postgres.toCamel } },
  });
}

const g = globalThis as unknown as { __jobscope?: Sql };

/**
 * The process's connection pool, created on first use. Kept on globalThis so
 * Next.js hot reloads in development do not open a new pool each time.
 *
 * Queries run on it through postgres.js's template or through drizzle (`drizzleOn()` in
 * lib/db/drizzle.ts: the query builder, its `sql` template). drizzle's own postgres-js driver
 * would replace the pool's timestamp and JSON parsers and serializers with pass-throughs, which
 * breaks every other query's Dates and JSON: `drizzleOn()` puts them back.
 */
export function pool(): Sql {
  g.__jobscope ??= connect(databaseUrl(), { appName: process.env.JOBSCOPE_ROLE ?? "jobscope" });
  return g.__jobscope;
}

const r = globalThis as unknown as { __jobscopeRead?: Sql };

/**
 * The pool for console reads that tolerate replica lag (lists, counts, charts):
 * a read replica at DATABASE_READ_URL when one is configured, else `pool()`.
 * Writes, and reads that guard a write (the expected state and version of an
 * action), always go to `pool()`. See docs/scaling.md.
 */
export function readPool(): Sql {
  const url = process.env.DATABASE_READ_URL;
  if (!url) return pool();
  r.__jobscopeRead ??= connect(url, { appName: `${process.env.JOBSCOPE_ROLE ?? "jobscope"}-read` });
  return r.__jobscopeRead;
}

export async function closePool() {
  const sql = g.__jobscope;
  g.__jobscope = undefined;
  await sql?.end({ timeout: 5 });
}

export async function closeReadPool() {
  const sql = r.__jobscopeRead;
  r.__jobscopeRead = undefined;
  await sql?.end({ timeout: 5 });
}
