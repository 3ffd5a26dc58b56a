import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { actorOf, requirePage, withViewer, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { idPrefixRange, isUuid, shortIdOf } from "@/lib/uuid";
import { tenantScopeOf } from "@/lib/auth/permissions";
import { slownessContextFor } from "@/lib/insight/slowness-context";
import { getJobDetail } from "@/lib/jobs/queries";
import { redactForTenant } from "@/lib/jobs/redact";
import { JobDetailView } from "./job-detail-view";
import { shortId } from "@/lib/jobs/short-id";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Job ${shortId(id)}` };
}

/**
 * The job's detail and when it was read: the page's "updated n s ago" and its clock start there; and
 * what "why was this slow" compares it with, read beside it so the panel's first sentence is final.
 * A comparison that fails leaves the panel to fetch it (its own error shows there), not the page.
 */
async function load(viewer: Viewer, id: string) {
  const [detail, context] = await Promise.all([
    withViewer(viewer, async (tx) => {
      const d = await getJobDetail(tx, id, { stacks: !tenantScopeOf(viewer) });
      return d && tenantScopeOf(viewer) ? redactForTenant(d) : d;
    }),
    slownessContextFor(viewer, id).catch((err: unknown) => {
      console.error("job page: the slowness comparison failed:", err);
      return null;
    }),
  ]);
  return { detail, context, readAt: Date.now() };
}

/**
 * The job page. The first view is rendered here from the database; the client
 * then keeps it live by polling GET /api/jobs/[id] for the same JobDetail.
 * Another tenant's job is "not found", exactly like a job that does not exist.
 */
export default async function JobPage({ params }: Props) {
  const { id } = await params;
  const viewer = await requirePage("jobs:read", `/jobs/${encodeURIComponent(id)}`);
  // getJobDetail answers null for a malformed id as well as a missing (or invisible) job.
  // A short id (the id's last 8 hex digits, as the console prints them; or the start of an id)
  // opens its job when only one id matches, and the list of its matches otherwise (issue 14, item 4).
  const prefix = isUuid(id) ? null : idPrefixRange(decodeURIComponent(id));
  if (prefix) {
    const tail = shortIdOf(decodeURIComponent(id));
    const matches = await withViewerRead(
      viewer,
      (tx) => tx<{ id: string }[]>`
      (SELECT id FROM job_catalog WHERE id BETWEEN ${prefix.lo}::uuid AND ${prefix.hi}::uuid ORDER BY id LIMIT 2)
      UNION (SELECT id FROM job_catalog WHERE ${tail !== null} AND right(id::text, 8) = ${tail ?? ""} LIMIT 2)`,
    );
    if (matches.length === 1) redirect(`/jobs/${matches[0]!.id}`);
    if (matches.length > 1) redirect(`/jobs?q=${encodeURIComponent(decodeURIComponent(id).trim().toLowerCase())}`);
    notFound();
  }
  const { detail, context, readAt } = await load(viewer, id);
  if (!detail) notFound();
  return (
    <JobDetailView
      id={detail.job.id}
      initial={detail}
      renderedAt={readAt}
      actorKind={actorOf(viewer)?.kind ?? null}
      audience={tenantScopeOf(viewer) ? "tenant" : "staff"}
      initialContext={context}
    />
  );
}
