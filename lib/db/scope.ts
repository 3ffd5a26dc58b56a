import type { Db, Tx } from "./client";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

/**
 * What rows a transaction may see under row-level security
 * (drizzle/0005_identity.sql): every tenant's (staff), or one tenant's.
 * A transaction that sets neither sees no rows at all.
 */
export type Scope = { all: true } | { tenantId: string };

/**
 * Run `fn` in one transaction whose tenant scope is set with bound
 * parameters, local to the transaction (`set_config(…, true)`): it cannot
 * leak into the next request that borrows the pooled connection.
 */
export async function withScope<T>(db: Db, scope: Scope, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (await db.transaction(async (tx) => {
    await setScope(tx, scope);
    return fn(tx);
  })) as T;
}

/** The scope's settings, local to the open transaction `tx` (what withScope does after BEGIN). */
export async function setScope(tx: Tx, scope: Scope): Promise<void> {
  // No parallel workers: a request reads pages and capped counts through indexes, and the planner
  // picked workers for walks that stop after a page (a tab count's walk of dead jobs: 100 ms of
  // worker start-up for 5,700 buffers; bench/console-explain.ts measures these reads).
  if ("all" in scope) {
    // The console's role switches to jobscope_staff for this transaction: its policies are the
    // constant true, so the query's own conditions stay index conditions (drizzle/0011_staff_role.sql).
    await execute(
      tx,
      sql`SELECT set_config('jobscope.scope', 'all', true), set_config('max_parallel_workers_per_gather', '0', true),
                    CASE WHEN current_user = 'jobscope_app' THEN set_config('role', 'jobscope_staff', true) END`,
    );
  } else {
    if (!scope.tenantId) throw new Error("withScope: a tenant scope needs a tenant id");
    await execute(tx, sql`SELECT set_config('jobscope.tenant', ${scope.tenantId}, true), set_config('max_parallel_workers_per_gather', '0', true)`);
  }
}
