import { DrizzleQueryError, getTableColumns, sql, type Column, type SQL, type Table } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import postgres from "postgres";
import type { Db } from "./client";

/**
 * How statements run on the one pool (lib/db/client.ts), all of them drizzle:
 * - the query builder (`db.select()…`, `db.insert()…`) for ordinary reads and writes of a table,
 *   wrapped in `run()`;
 * - `execute(db, sql\`…\`)` where the statement is the point (a guarded write, a claim, a report,
 *   a console read, DDL), prepared per connection by its text, as postgres.js prepares its own
 *   tagged templates;
 * - `prepared(db, key, build)` for the hot path's statements, built once and planned once per connection.
 * Each answers with PostgreSQL's own error when a statement fails (`pgError`).
 */
export type Rows<T> = postgres.RowList<T[]>;

const dialect = new PgDialect();

/**
 * A statement built with drizzle's `sql` template: its rows typed `T`, with camelCase keys, and
 * `count` (the rows an UPDATE or DELETE touched). It runs as a named statement of the connection,
 * kept by its text (postgres.js's cache), so a statement run again — a console read on every poll,
 * a transition — is parsed once per connection and can keep a plan, with or without parameters.
 * drizzle's own `db.execute` sends it unnamed, and one without parameters as a simple query:
 * planned on every call (the console's tab counts: about 11 ms of planning at 100,000 jobs).
 * A script of several statements (a test's DDL) has no parameters and a semicolon: it goes as a
 * simple query, unprepared, since a named statement cannot hold several.
 */
export async function execute<T extends object = Record<string, unknown>>(db: Db, statement: SQL): Promise<Rows<T>> {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  // The pool's client, or the connection a transaction holds (drizzle's session keeps it).
  const client = (db._.session as unknown as { client: postgres.Sql }).client;
  const script = params.length === 0 && text.includes(";");
  const options = { prepare: !script, simple: script } as postgres.UnsafeQueryOptions;
  return (await client.unsafe<T[]>(text, params as postgres.ParameterOrJSON<never>[], options).catch(unwrap)) as Rows<T>;
}

/** A statement built once (with `sql.placeholder(name)` for its values) and run many times. */
export type Statement<T> = (values: Record<string, unknown>) => Promise<T[]>;

const statements = new WeakMap<object, Map<string, Statement<unknown>>>();

/**
 * A statement built with drizzle's `sql` template, compiled once per client and `key`, and run as a
 * named (prepared) statement: PostgreSQL plans it once per connection, and the worker's hot path
 * pays neither drizzle's build (about 0.3 ms for the round statement) nor a parse and plan per call.
 * `build` must give the same text for the same key: its values go in through placeholders.
 */
export function prepared<T>(db: Db, key: string, build: () => SQL): Statement<T> {
  let byKey = statements.get(db);
  if (!byKey) statements.set(db, (byKey = new Map()));
  let st = byKey.get(key) as Statement<T> | undefined;
  if (!st) {
    const query = db._.session.prepareQuery(dialect.sqlToQuery(build()), undefined, key, false);
    st = (values) => (query.execute(values) as Promise<T[]>).catch(unwrap);
    byKey.set(key, st as Statement<unknown>);
  }
  return st;
}

/**
 * An array parameter of a prepared statement as PostgreSQL's array literal (`{1,"a\\"b",NULL}`),
 * built here in one pass: postgres.js passes a string through as written, where it would serialize
 * an array element by element (a call and two regular expressions each), which on a worker round's
 * hundreds of moves was about a tenth of the worker's CPU. Strings are quoted and escaped as
 * `array_in` reads them; numbers must be finite.
 */
export function arrayLiteral(xs: readonly (string | number | null)[]): string {
  let out = "{";
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (i > 0) out += ",";
    if (x === null || x === undefined) out += "NULL";
    else if (typeof x === "number") {
      if (!Number.isFinite(x)) throw new RangeError(`arrayLiteral: ${x} is not a finite number`);
      out += x;
    } else out += `"${x.includes("\\") || x.includes('"') ? x.replace(/[\\"]/g, "\\$&") : x}"`;
  }
  return out + "}";
}

/** A query builder's statement (`db.select()…`), run with PostgreSQL's own error when it fails. */
export async function run<T>(query: PromiseLike<T>): Promise<T> {
  try {
    return await query;
  } catch (e) {
    unwrap(e);
  }
}

/**
 * A table's columns but `omit` (a secret, a cursor), keyed as the table keys them: what a list
 * selects or a change returns of a row, and whose type is the row's less the same keys.
 */
export function columnsExcept<T extends Table, K extends keyof T["_"]["columns"] & string>(table: T, ...omit: K[]): Omit<T["_"]["columns"], K> {
  const left = Object.entries(getTableColumns(table)).filter(([key]) => !(omit as string[]).includes(key));
  // Object.fromEntries types its keys as any string: they are the table's own, less `omit`.
  return Object.fromEntries(left) as Omit<T["_"]["columns"], K>;
}

/** Columns as the list of a hand-written statement's `SELECT` or `RETURNING`: a change returns what a list selects. */
export const columnList = (columns: Record<string, Column>): SQL =>
  sql.join(
    Object.values(columns).map((c) => sql.identifier(c.name)),
    sql`, `,
  );

/** PostgreSQL's error behind `e` (drizzle's wrapper taken off), or undefined if `e` is another failure. */
export function pgError(e: unknown): postgres.PostgresError | undefined {
  const cause = e instanceof DrizzleQueryError && e.cause ? e.cause : e;
  return cause instanceof postgres.PostgresError ? cause : undefined;
}

/**
 * drizzle wraps a driver's error in a DrizzleQueryError (with the statement and its parameters):
 * callers classify PostgreSQL's own error (its code, its constraint), and a job's parameters do not
 * belong in a log line, so the driver's error goes on.
 */
function unwrap(e: unknown): never {
  throw e instanceof DrizzleQueryError && e.cause ? e.cause : e;
}
