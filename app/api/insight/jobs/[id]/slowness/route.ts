import { consoleRoute } from "@/lib/frame/route";
import { explainContextFor } from "@/lib/insight/context";
import { AppError } from "@/lib/result";

export const dynamic = "force-dynamic";

/**
 * What the job page's "why was this slow" reads about the rest of the system for the job
 * (lib/insight/context.ts): its comparison with jobs of its type that succeeded before it was
 * submitted (for a tenant member, only their tenant's), the jobs of its queue ahead of it and
 * started before it (counts only), its queue's pauses and limits, the workers' history and what
 * became of its lost attempts. The job itself (runs, events) comes from the job page's own read.
 * Same permission as the job page.
 */
export const GET = consoleRoute<{ id: string }>({
  permission: "jobs:read",
  failed: "Could not load the comparison: the database did not answer. Details are in the server log.",
  read: async ({ tx, viewer, params }) => {
    // Tenant isolation twice: in the query, and by row-level security on the scoped transaction.
    const ctx = await explainContextFor(viewer, params.id, { tx });
    if (!ctx) throw new AppError("not_found", "No such job: it may have been removed, or the link is wrong.");
    return ctx;
  },
});
