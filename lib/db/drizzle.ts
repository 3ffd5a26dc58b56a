import { DrizzleQueryError, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle, PostgresJsDatabase, PostgresJsSession } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import type { Db } from "./client";

/**
 * Drizzle over the process's one postgres.js pool (or over a transaction of it).
 *
 * drizzle-orm's postgres-js driver, when it wraps a client, replaces that client's parsers and
 * serializers for the date/time types and its serializers for json/jsonb with pass-throughs
 * (it maps values itself in its query builder). On a shared pool that broke every other query:
 * Dates arrived as strings, and Date or object parameters were sent unserialized. So the
 * pool's own parsers and serializers are put back right after drizzle is constructed: statements
 * built with drizzle's `sql` template carry their parameters through postgres.js's serializers
 * (typed by the server), and results come back parsed as everywhere else. Our schema's columns
 * map to postgres.js's types (timestamps as Date, jsonb as objects), so drizzle's query builder
 * reads them correctly too (docs/decisions.md, "Drizzle on the one pool").
 */
export type DrizzleDb = PostgresJsDatabase<Record<string, never>>;

const dialect = new PgDialect();
const cache = new WeakMap<object, DrizzleDb>();

type Codecs = { parsers: Record<string, unknown>; serializers: Record<string, unknown> };

export function drizzleOn(client: Db): DrizzleDb {
  const hit = cache.get(client);
  if (hit) return hit;
  // postgres.js keeps parsers and serializers on the pool's options; a transaction has none of its
  // own (it runs on its pool's connection, with the pool's): drizzle on it needs only a session.
  const options = (client as unknown as { options?: Codecs }).options;
  if (!options) {
    const db = new PostgresJsDatabase(dialect, new PostgresJsSession(client as postgres.Sql, dialect, undefined), undefined);
    cache.set(client, db);
    return db;
  }
  const saved = { parsers: { ...options.parsers }, serializers: { ...options.serializers } };
  const db = drizzle(client as postgres.Sql);
  for (const k of Object.keys(options.parsers)) if (!(k in saved.parsers)) delete options.parsers[k];
  for (const k of Object.keys(options.serializers)) if (!(k in saved.serializers)) delete options.serializers[k];
  Object.assign(options.parsers, saved.parsers);
  Object.assign(options.serializers, saved.serializers);
  cache.set(client, db);
  return db;
}

/** A statement built once (with `sql.placeholder(name)` for its values) and run many times. */
export type Statement<T> = (values: Record<string, unknown>) => Promise<T[]>;

const statements = new WeakMap<object, Map<string, Statement<unknown>>>();

/**
 * A statement built with drizzle's `sql` template, compiled once per client and `key`, and run as a
 * named (prepared) statement: PostgreSQL plans it once per connection, and the worker's hot path
 * pays neither drizzle's build (about 0.3 ms for the round statement) nor a parse and plan per call.
 * `db.execute()` sends unnamed statements, parsed and planned on every call (docs/decisions.md,
 * "Drizzle on the one pool"). `build` must give the same text for the same key: its values go in
 * through placeholders. Rows come back as objects with camelCase keys.
 */
export function prepared<T>(client: Db, key: string, build: () => SQL): Statement<T> {
  let byKey = statements.get(client);
  if (!byKey) statements.set(client, (byKey = new Map()));
  let st = byKey.get(key) as Statement<T> | undefined;
  if (!st) {
    const query = drizzleOn(client)._.session.prepareQuery(dialect.sqlToQuery(build()), undefined, key, false);
    st = (values) => (query.execute(values) as Promise<T[]>).catch(unwrap);
    byKey.set(key, st as Statement<unknown>);
  }
  return st;
}

/** A statement built and run once (drizzle's `sql` template, unnamed), for statements that run rarely. */
export async function runOnce<T>(client: Db, query: SQL): Promise<T[]> {
  return (await drizzleOn(client).execute(query).catch(unwrap)) as unknown as T[];
}

/**
 * A query builder's statement (`drizzleOn(db).select()…`), run with PostgreSQL's own error when it
 * fails, as `prepared` and `runOnce` do: callers classify it by its code and constraint.
 */
export async function run<T>(query: PromiseLike<T>): Promise<T> {
  try {
    return await query;
  } catch (e) {
    unwrap(e);
  }
}

/**
 * drizzle wraps a driver's error in a DrizzleQueryError (with the statement and its parameters):
 * callers classify PostgreSQL's own error (its code, its constraint), and a job's parameters do not
 * belong in a log line, so the driver's error goes on.
 */
function unwrap(e: unknown): never {
  throw e instanceof DrizzleQueryError && e.cause ? e.cause : e;
}
