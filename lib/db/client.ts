import { existsSync, readFileSync } from "node:fs";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle, type PostgresJsDatabase, type PostgresJsQueryResultHKT } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { DEFAULT_DATA_DIR, urlFileFor } from "./embedded";

/** A connection pool: drizzle over postgres.js (`$client` is the driver, used only for LISTEN/NOTIFY and `end`). */
export type Pool = PostgresJsDatabase<Record<string, never>> & { $client: postgres.Sql };
/** Anything that runs queries: a pool, or a transaction of one (a tenant-scoped request, a savepoint). */
export type Db = PgDatabase<PostgresJsQueryResultHKT, Record<string, never>>;
/** A transaction (`db.transaction(async (tx) => …)`); nested `tx.transaction` is a savepoint. */
export type Tx = PgTransaction<PostgresJsQueryResultHKT, Record<string, never>, ExtractTablesWithRelations<Record<string, never>>>;

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

type Codecs = { parsers: Record<string, unknown>; serializers: Record<string, unknown> };

/**
 * A pool of `max` connections to `url`, as drizzle.
 *
 * `genericPlans`: the pool's sessions reuse one plan per prepared statement
 * (plan_cache_mode = force_generic_plan). The write path's statements are large: planning one
 * costs milliseconds, and PostgreSQL re-plans a statement whose custom plans look cheaper than its
 * generic one on every execution — the case of a one-job statement (drizzle/0012_narrow_hot_path.sql
 * sets it for the worker role; lib/jobs/plans.test.ts checks the generic plans).
 *
 * drizzle's postgres-js driver replaces the client's parsers and serializers for the date/time
 * types, and its serializers for json/jsonb, with pass-throughs (its query builder maps values
 * itself). They are put back: statements built with drizzle's `sql` template then carry Dates and
 * objects through postgres.js's serializers (typed by the server) and read timestamps as Dates and
 * jsonb as objects, and the query builder reads our schema's columns (timestamptz as Date, jsonb)
 * the same way (docs/decisions.md, "Drizzle on the one pool").
 */
export type ConnectOptions = {
  max?: number;
  appName?: string;
  genericPlans?: boolean;
  /** Seconds to wait for a connection (postgres.js's default: 30). */
  connectTimeout?: number;
  /** The server's notices (auto_explain's plans, for the bench); dropped by default. */
  onnotice?: (notice: postgres.Notice) => void;
  /** Keep snake_case column names (drizzle's migrator reads its own table by them); default camelCase. */
  snakeCase?: boolean;
};

export function connect(url: string, opts: ConnectOptions = {}): Pool {
  const client = postgres(url, {
    max: opts.max ?? 10,
    ...(opts.connectTimeout && { connect_timeout: opts.connectTimeout }),
    onnotice: opts.onnotice ?? (() => {}),
    connection: { application_name: opts.appName ?? "jobscope", ...(opts.genericPlans && { plan_cache_mode: "force_generic_plan" }) },
    // snake_case columns arrive as camelCase keys.
    ...(!opts.snakeCase && { transform: { column: { from: postgres.toCamel } } }),
  });
  return drizzleOver(client);
}

/**
 * drizzle over a postgres.js client (a pool, or a connection reserved from one: it shares the pool's
 * codecs), with the client's parsers and serializers put back as `connect` describes.
 */
export function drizzleOver(client: postgres.Sql): Pool {
  const options = (client as unknown as { options: Codecs }).options;
  const saved = { parsers: { ...options.parsers }, serializers: { ...options.serializers } };
  const db = drizzle(client);
  for (const k of Object.keys(options.parsers)) if (!(k in saved.parsers)) delete options.parsers[k];
  for (const k of Object.keys(options.serializers)) if (!(k in saved.serializers)) delete options.serializers[k];
  Object.assign(options.parsers, saved.parsers);
  Object.assign(options.serializers, saved.serializers);
  return db;
}

/** Close a pool's connections (waiting up to `timeout` seconds for queries in flight). */
export async function closeDb(db: Pool, timeout = 5): Promise<void> {
  await db.$client.end({ timeout });
}

const g = globalThis as unknown as { __jobscope?: Pool };

/**
 * The process's connection pool, created on first use. Kept on globalThis so
 * Next.js hot reloads in development do not open a new pool each time.
 */
export function pool(): Pool {
  g.__jobscope ??= connect(databaseUrl(), { appName: process.env.JOBSCOPE_ROLE ?? "jobscope" });
  return g.__jobscope;
}

const r = globalThis as unknown as { __jobscopeRead?: Pool };

/**
 * The pool for console reads that tolerate replica lag (lists, counts, charts):
 * a read replica at DATABASE_READ_URL when one is configured, else `pool()`.
 * Writes, and reads that guard a write (the expected state and version of an
 * action), always go to `pool()`. See docs/scaling.md.
 */
export function readPool(): Pool {
  const url = process.env.DATABASE_READ_URL;
  if (!url) return pool();
  r.__jobscopeRead ??= connect(url, { appName: `${process.env.JOBSCOPE_ROLE ?? "jobscope"}-read` });
  return r.__jobscopeRead;
}

export async function closePool() {
  const db = g.__jobscope;
  g.__jobscope = undefined;
  if (db) await closeDb(db);
}

export async function closeReadPool() {
  const db = r.__jobscopeRead;
  r.__jobscopeRead = undefined;
  if (db) await closeDb(db);
}
