import type postgres from "postgres";
import type { Sql } from "../db/client";

export type Tx = postgres.TransactionSql;

/**
 * Run `fn` in a transaction marked as the write path. The `jobs` table's
 * trigger refuses any change to state, version or attempts, and any insert,
 * from a transaction without this mark (drizzle/0001_write_path_guard.sql).
 * Only the modules in lib/jobs call this; a test keeps it that way.
 */
export async function inWritePath<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (await sql.begin(async (tx) => {
    await tx`SELECT set_config('jobscope.write_path', 'on', true)`;
    return fn(tx);
  })) as T;
}

/** The clock of a write: the database's, unless the demo seeder back-dates it. */
export const clock = (tx: Tx, at: Date | undefined) => (at ? tx`${at}::timestamptz` : tx`now()`);

export const JOB_COLUMNS = `id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version,
  lease_owner, heartbeat_at, not_before, params, idempotency_key, created_at, updated_at, finished_at`;
