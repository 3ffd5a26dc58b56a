import { tenantScopeOf } from "../auth/permissions";
import { withViewerRead, type Viewer } from "../auth/viewer";
import { readPoolAfter } from "../db/read-your-writes";
import { withScope, type ScopedSql } from "../db/scope";
import type { JobRow } from "../jobs/types";
import { isUuid } from "../uuid";
import { jobsAhead, slownessContext, type SlownessContextData } from "./baseline";

type Subject = Pick<JobRow, "id" | "type" | "queue" | "tenantId" | "priority" | "createdAt">;

/**
 * What the job page's "why was this slow" compares one job with, for this viewer, or null when the
 * job does not exist or is not theirs. Read by the page for its first paint (so the sentence does not
 * change a second later) and by GET /api/insight/jobs/[id]/slowness after.
 *
 * A tenant's jobs ahead are every tenant's jobs ahead (issue 14, item 11): counting under the
 * tenant's row-level security would count only their own. So, after the job was found under the
 * tenant's scope, that one count runs in a second transaction that sees every tenant, and only two
 * numbers (all, and the tenant's own) leave it: never an id, a type or a tenant.
 */
export async function slownessContextFor(viewer: Viewer, id: string, tx?: ScopedSql): Promise<SlownessContextData | null> {
  if (!isUuid(id)) return null;
  const tenant = tenantScopeOf(viewer);
  const read = async (sql: ScopedSql) => {
    const [job] = await sql<Subject[]>`
      SELECT id, type, queue, tenant_id, priority, created_at FROM job_catalog
       WHERE id = ${id} ${tenant ? sql`AND tenant_id = ${tenant}` : sql``}`;
    if (!job) return null;
    return slownessContext(sql, job, {
      tenantOnly: tenant !== null,
      ahead: tenant ? async (j) => withScope(await readPoolAfter(), { all: true }, (all) => jobsAhead(all, j)) : undefined,
    });
  };
  return tx ? read(tx) : withViewerRead(viewer, read);
}
