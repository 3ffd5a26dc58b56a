import { tenantScopeOf } from "@/lib/auth/permissions";
import { consoleRoute } from "@/lib/frame/route";
import { getJobDetail } from "@/lib/jobs/queries";
import { redactForTenant } from "@/lib/jobs/redact";
import { AppError } from "@/lib/result";

// Polled live by the job page: never prerendered, never cached.
export const dynamic = "force-dynamic";

/** One job with its runs, events and rejections: the same JobDetail the page renders first, as JSON. */
export const GET = consoleRoute<{ id: string }>({
  permission: "jobs:read",
  // The page's actions are guarded by the version it shows: read it from the primary.
  reads: "primary",
  failed: "Could not load the job: the database did not answer. Details are in the server log.",
  read: async ({ tx, viewer, params }) => {
    // getJobDetail answers null for a malformed id, and for another tenant's job: all are "no such job".
    // Stacks are read for staff only: a tenant's request never fetches them.
    const detail = await getJobDetail(tx, params.id, { stacks: !tenantScopeOf(viewer) });
    if (!detail) throw new AppError("not_found", "No such job: it may have been removed, or the link is wrong.");
    // A tenant member reads no worker ids, lease owners or staff e-mail addresses (lib/jobs/redact.ts).
    return tenantScopeOf(viewer) ? redactForTenant(detail) : detail;
  },
});
