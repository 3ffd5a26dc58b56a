import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";
import { isUuid } from "../uuid";
import type { BulkEvent, BulkOutcome, BulkProgress } from "./bulk";
import { finishedJoins } from "./read-model";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * What became of the jobs a bulk operation (or a replay) touched: the jobs list
 * under `operation=<id>` shows them, and this sums them up live — how many the operation applied to,
 * refused or has not reached yet, and where the applied ones are now (succeeded, dead again, still
 * running or waiting). Only the jobs the transaction may see are counted (row-level security on
 * job_catalog, and the tenant filter a tenant member's list always has), and the operation itself
 * (what, by whom) is told only to staff: a tenant sees the outcome of its own jobs.
 */
export type OperationOutcome = {
  id: string;
  /** Null for a tenant member: the operation may span tenants, and its words name their filters. */
  operation: {
    event: BulkEvent;
    description: string;
    actorId: string;
    status: BulkProgress["status"];
    total: number;
    createdAt: Date;
    finishedAt: Date | null;
  } | null;
  /** Items the viewer may see, by the operation's outcome for them: applied, a refusal's kind, or not settled yet. */
  items: { applied: number; refused: number; pending: number };
  /** Where the applied jobs are now, by state. */
  now: Partial<Record<JobState, number>>;
};

export async function operationOutcome(db: Db, operationId: string, f: { tenant?: string } = {}): Promise<OperationOutcome | null> {
  if (!isUuid(operationId)) return null;
  const [op] = await execute<NonNullable<OperationOutcome["operation"]> & { visible: boolean }>(
    db,
    sql`
    SELECT event, description, actor_id, status, total, created_at, finished_at, jobscope_sees_all() AS visible
      FROM bulk_operations WHERE id = ${operationId}::uuid`,
  );
  if (!op) return null;
  const rows = await execute<{ outcome: BulkOutcome | null; state: JobState | null; n: number }>(
    db,
    sql`
    SELECT p.outcome, coalesce(l.state, f.fin_state) AS state, count(*)::int AS n
      FROM (SELECT i.job_id AS id, i.outcome FROM bulk_operation_items i WHERE i.operation_id = ${operationId}::uuid) p
      JOIN job_catalog c ON c.id = p.id ${f.tenant ? sql`AND c.tenant_id = ${f.tenant}` : sql``}
      LEFT JOIN jobs_live l ON l.id = p.id
      ${finishedJoins()}
     GROUP BY 1, 2`,
  );
  const items = { applied: 0, refused: 0, pending: 0 };
  const now: Partial<Record<JobState, number>> = {};
  for (const r of rows) {
    if (r.outcome === null) items.pending += r.n;
    else if (r.outcome !== "applied") items.refused += r.n;
    else {
      items.applied += r.n;
      if (r.state) now[r.state] = (now[r.state] ?? 0) + r.n;
    }
  }
  const { visible, ...operation } = op;
  return { id: operationId, operation: visible ? operation : null, items, now };
}
