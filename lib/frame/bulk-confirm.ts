import "server-only";
import { auditBulkItems } from "../audit/bulk";
import { pool } from "../db/client";
import { startBulk, type BulkEvent, type FrozenJob } from "../jobs/bulk";
import type { ActionContext, Done } from "./action";

/**
 * The confirm step of a dry run (the jobs list's bulk actions, dead-job replays): submit the job that
 * moves the frozen selection (a worker runs it). The frozen list comes back from the browser: each
 * item is still a guarded transition from the state and version named here, applied as the calling
 * operator's server-side actor, and audited in its own transaction.
 */
export async function confirmBulk(
  { viewer, actor }: ActionContext<unknown>,
  { event, description, frozen }: { event: BulkEvent; description: string; frozen: FrozenJob[] },
): Promise<Done<{ operationId: string }>> {
  const { operationId } = await startBulk(pool(), { frozen, event, actor: actor(), description, audit: auditBulkItems(viewer, event, description) });
  return { ok: true, data: { operationId } };
}
