import { getTableName, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * The distinct values of an indexed column, in order, as a subquery of one column, `value`: one
 * index probe per value (a loose index scan, which PostgreSQL does not plan by itself), so a large
 * table's few distinct values cost their number, not the table's rows. The recursion goes only as
 * far as the statement reads, so a LIMIT on the statement bounds it.
 */
export function distinctValues(column: AnyPgColumn): SQL {
  const table = sql.identifier(getTableName(column.table));
  const c = sql.identifier(column.name);
  return sql`(
    WITH RECURSIVE d AS (
      (SELECT ${c} AS value FROM ${table} ORDER BY ${c} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${c} FROM ${table} WHERE ${c} > d.value ORDER BY ${c} LIMIT 1) FROM d WHERE d.value IS NOT NULL)
    SELECT value FROM d WHERE value IS NOT NULL)`;
}
