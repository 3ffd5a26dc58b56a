import type { Db } from "../db/client";
import { runBulkOperation } from "../jobs/bulk";
import { JobCancelled, PermanentError } from "./errors";
import type { Handlers } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * Jobscope's own job types, which every worker runs beside its application's handlers
 * (createWorker merges them; an application handler of the same name wins).
 *
 * `jobscope.bulk` applies a confirmed bulk action (lib/jobs/bulk.ts): each attempt settles the
 * items still unsettled, so a worker killed mid-operation costs nothing but the lease expiry
 * (the next attempt resumes). Cancelling the job stops the operation: it is marked failed, the
 * items it had not reached stay unsettled, visible on its progress page.
 */
export function builtinHandlers(db: Db): Handlers {
  return {
    "jobscope.bulk": {
      run: async (ctx) => {
        const { operationId } = ctx.job.params;
        try {
          const r = await runBulkOperation(db, operationId, { checkpoint: () => ctx.checkpoint(), signal: ctx.signal });
          // A job naming no operation (one submitted by hand): no attempt will find one.
          if (r.status === "missing") throw new PermanentError(`no bulk operation ${operationId}`);
          return r;
        } catch (e) {
          if (e instanceof JobCancelled) {
            await execute(
              db,
              sql`UPDATE bulk_operations SET status = 'failed', finished_at = now() WHERE id = ${operationId} AND status = 'running'`,
            );
          }
          throw e;
        }
      },
      // A database that went away: come back soon, the operation is someone waiting at a progress bar.
      retry: { baseMs: 1_000, capMs: 30_000, jitter: 0.3 },
    },
  };
}
