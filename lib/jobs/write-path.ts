import type postgres from "postgres";
import type { Sql } from "../db/client";

export type Tx = postgres.TransactionSql;

/**
 * Run `fn` in a transaction marked as the write path. The `jobs` table's
 * trigger refuses any change to state, version or attempts, and any insert,
 * from a transaction without this mark (drizzle/0001_write_path_guard.sql).
 * Only the modules in lib/jobs call this; a test keeps it that way. The mark
 * is transaction-local: inside a caller's transaction it stays set until that commits.
 */
export async function inWritePath<T>(sql: Sql | Tx, fn: (tx: Tx) => Promise<T>, opts: { keyLookups?: boolean } = {}): Promise<T> {
  const body = async (tx: Tx) => {
    // keyLookups: the statement joins an input of unknown size (to the planner) to jobs by primary
    // key; without these, a lease owner that matches ~no rows in the statistics made it scan jobs
    // and rescan the input per row. Like the mark, they end with the transaction.
    if (opts.keyLookups) {
      await tx`SELECT set_config('jobscope.write_path', 'on', true), set_config('enable_seqscan', 'off', true),
                      set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`;
    } else await tx`SELECT set_config('jobscope.write_path', 'on', true)`;
    return fn(tx);
  };
  // Inside a caller's transaction (a console request scoped to a tenant, with its
  // audit row): a savepoint, so a refusal's writes and the caller's share one commit.
  if ("savepoint" in sql) return (await sql.savepoint(body)) as T;
  return (await sql.begin(body)) as T;
}

/**
 * The mark for a write that is ONE autocommit statement (the claim, on every worker's hot path):
 * `WITH mark AS MATERIALIZED (${writePathMark(sql)}), picked AS (SELECT … FROM mark, …)`.
 * The rows the statement changes come from a CTE that reads `mark` first, so the mark is set
 * before the guard trigger fires; it ends with the statement's implicit transaction. One round
 * trip instead of BEGIN, the mark, the statement and COMMIT.
 */
export const writePathMark = (sql: Sql | Tx) => sql`SELECT set_config('jobscope.write_path', 'on', true) AS marked`;

/** The clock of a write: the database's, unless the demo seeder back-dates it. */
export const clock = (tx: Sql | Tx, at: Date | undefined) => (at ? tx`${at}::timestamptz` : tx`now()`);

export const JOB_COLUMNS = `id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version,
  lease_owner, heartbeat_at, not_before, params, idempotency_key, created_at, updated_at, finished_at`;
