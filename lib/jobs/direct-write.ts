import type { Db, Tx } from "../db/client";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";
import { uuidv7Expr } from "./ids";

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

/**
 * `n` queued report jobs on `queue` in one statement, as `enqueue` writes them (the catalog row,
 * which is the submit, and the live row), for loaders that fill a queue before a measurement. The
 * ids are time-ordered as enqueue's (lib/jobs/ids.ts), and go in in id order, unless `randomIds`
 * (what bench/factors.ts compares them with: random ids, in the order they come).
 */
export async function insertQueuedJobs(db: Db, opts: { n: number; queue: string; randomIds?: boolean }): Promise<void> {
  await withDirectWrites(db, (tx) =>
    execute(
      tx,
      sql`
      WITH c AS (
        INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, submitted_by_kind, submitted_by, created_at, not_before)
        SELECT ${opts.randomIds ? sql`gen_random_uuid()` : sql.raw(uuidv7Expr("now()"))}, 'acme', 'report.generate', ${opts.queue}, 0, 3,
               '{"report":"daily_usage","period":"2026-11"}'::jsonb, 'api', 'loader', now(), now()
          FROM generate_series(1, ${opts.n}::int)
        RETURNING *)
      INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
      SELECT id, tenant_id, type, queue, priority, 'queued', 0, max_attempts, 0, not_before, params, created_at, created_at FROM c
      ${opts.randomIds ? sql`` : sql`ORDER BY id`}`,
    ),
  );
}

/** The `jobs` view's columns, in the order JobRow lists them. */
export const JOB_COLUMNS = `id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version,
  lease_owner, heartbeat_at, not_before, params, idempotency_key, created_at, updated_at, finished_at`;
