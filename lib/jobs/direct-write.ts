import type { Db, Tx } from "../db/client";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * Run `fn` in a transaction marked as the write path, for set-based loaders that write many
 * jobs' rows directly (the benchmark's generator). The product's statements carry the mark
 * themselves (`markCte`, lib/jobs/write.ts). The guard triggers refuse any insert or delete of a
 * job's state rows, and any change of its state, version, attempts or lease, from a transaction
 * without this mark (drizzle/0012_narrow_hot_path.sql). Only lib/jobs and the benchmark's loaders
 * set it; a test keeps it that way.
 */
export async function withDirectWrites<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await execute(tx, sql`SELECT set_config('jobscope.write_path', 'on', true)`);
    return fn(tx);
  });
}

/** The `jobs` view's columns, in the order JobRow lists them. */
export const JOB_COLUMNS = `id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version,
  lease_owner, heartbeat_at, not_before, params, idempotency_key, created_at, updated_at, finished_at`;
