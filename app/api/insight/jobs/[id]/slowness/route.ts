import { tenantScopeOf } from "@/lib/auth/permissions";
import { slownessContext } from "@/lib/insight/baseline";
import type { JobRow } from "@/lib/jobs/types";
import { isUuid } from "@/lib/uuid";
import { failure, insightGet } from "../../../respond";

export const dynamic = "force-dynamic";

/**
 * What the job page's "why was this slow" compares the job with: p50/p95 per
 * phase of recent jobs of its type (for a tenant member, only their tenant's),
 * and the jobs of its queue ahead of it at submit. The job itself (runs,
 * events) comes from the job page's own read. Same permission as the job page.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return insightGet("the comparison", "jobs:read", async (tx, viewer) => {
    if (!isUuid(id)) return failure(404, "not_found", "No such job.");
    // Tenant isolation twice: here, and by row-level security on the scoped transaction.
    const tenant = tenantScopeOf(viewer);
    const [job] = await tx<Pick<JobRow, "id" | "type" | "queue" | "tenantId" | "priority" | "createdAt">[]>`
      SELECT id, type, queue, tenant_id, priority, created_at FROM job_catalog
       WHERE id = ${id} ${tenant ? tx`AND tenant_id = ${tenant}` : tx``}`;
    if (!job) return failure(404, "not_found", "No such job: it may have been removed, or the link is wrong.");
    return slownessContext(tx, job, { tenantOnly: tenant !== null });
  });
}
