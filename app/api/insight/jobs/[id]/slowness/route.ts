import { consoleRoute } from "@/lib/edge/route";
import { slownessContextFor } from "@/lib/insight/slowness-context";
import { AppError } from "@/lib/result";

export const dynamic = "force-dynamic";

/**
 * What the job page's "why was this slow" compares the job with: p50/p95 per
 * phase of recent jobs of its type (for a tenant member, only their tenant's),
 * the jobs of its queue ahead of it at submit (every tenant's, as a count, with
 * the viewer's tenant's share), its queue's pauses, the workers' history and
 * the last heartbeats of its lost attempts. The job itself (runs, events) comes
 * from the job page's own read. Same permission as the job page.
 */
export const GET = consoleRoute<{ id: string }>({
  permission: "jobs:read",
  failed: "Could not load the comparison: the database did not answer. Details are in the server log.",
  read: async ({ tx, viewer, params }) => {
    // Tenant isolation twice: in the query, and by row-level security on the scoped transaction.
    const ctx = await slownessContextFor(viewer, params.id, tx);
    if (!ctx) throw new AppError("not_found", "No such job: it may have been removed, or the link is wrong.");
    return ctx;
  },
});
