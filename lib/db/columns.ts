import { sql } from "drizzle-orm";
import { bigint, check, foreignKey, text, timestamp, uuid, type AnyPgColumn, type ExtraConfigColumn } from "drizzle-orm/pg-core";

/**
 * Column and constraint builders the schema files share (lib/db/schema*.ts). Not a schema file
 * itself: drizzle-kit reads only what those declare.
 */

/** `'a', 'b'`: a list of string literals, for an `IN (…)` of the migrations. */
export const sqlList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));

/** `column IN ('a', 'b')`: a CHECK constraint of the migrations, from the list in code it keeps to. */
export const oneOf = (column: AnyPgColumn, values: readonly string[]) => sql`${column} IN (${sqlList(values)})`;

/** `<table>_<column>_known`: a CHECK that the column holds one of the values in code. */
export const checkKnown = (table: string, column: AnyPgColumn, values: readonly string[]) =>
  check(`${table}_${column.name}_known`, oneOf(column, values));

/**
 * An index key in PostgreSQL's own descending order (`DESC`, nulls first), as the hand-written
 * migrations create it: drizzle's `.desc()` alone writes `DESC NULLS LAST`, a different index.
 */
export const keyDesc = (column: ExtraConfigColumn) => column.desc().nullsFirst();
export const tz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** An append-only table's primary key, in insertion order. */
export const serialId = () => bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity();

/** The tenant a row belongs to (`tenants.id`). */
export const tenantId = () => text("tenant_id").notNull();

/** The job a row is about (a `job_catalog` id). */
export const jobId = () => uuid("job_id").notNull();

/** When the row was created and last updated, both filled in by the database. */
export const timestamps = () => ({
  createdAt: tz("created_at").notNull().defaultNow(),
  updatedAt: tz("updated_at").notNull().defaultNow(),
});

/** A row staff edit in the console: when and by whom it was created and last changed. */
export const authored = () => ({
  createdAt: tz("created_at").notNull().defaultNow(),
  createdBy: text("created_by").notNull(),
  updatedAt: tz("updated_at").notNull().defaultNow(),
  updatedBy: text("updated_by").notNull(),
});

/** A single-column foreign key under the name PostgreSQL gives it (`<table>_<column>_fkey`). */
export const fkey = (table: string, column: AnyPgColumn, target: AnyPgColumn) =>
  foreignKey({ name: `${table}_${column.name}_fkey`, columns: [column], foreignColumns: [target] });
