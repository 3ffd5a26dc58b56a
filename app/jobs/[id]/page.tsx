import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { actorOf, requirePage, withViewer, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { idQueryOf, isUuid } from "@/lib/uuid";
import { idPieceIds } from "@/lib/jobs/id-lookup";
import { tenantScopeOf } from "@/lib/auth/permissions";
import { explainContextFor } from "@/lib/insight/context";
import { getJobDetail, type JobDetail } from "@/lib/jobs/queries";
import { redactForTenant } from "@/lib/jobs/redact";
import { JobDetailView } from "./job-detail-view";
import { shortId } from "@/lib/jobs/short-id";
import { sql } from "drizzle-orm";
import { execute } from "@/lib/db/drizzle";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Job ${shortId(id)}` };
}

/**
 * What "why was this slow" compares the job with, read before the view so that the panel's first
 * sentence is final, and when the page was read: its "updated n s ago" and its clock start there. A
 * comparison that fails leaves the panel to fetch it (its own error shows there), not the page.
 */
async function loadContext(viewer: Viewer, raw: JobDetail) {
  const context = await explainContextFor(viewer, raw.job.id, { detail: raw }).catch((err: unknown) => {
    console.error("job page: the explanation's context failed:", err);
    return null;
  });
  return { context, readAt: Date.now() };
}

async function JobWithContext({ viewer, raw }: { viewer: Viewer; raw: JobDetail }) {
  const { context, readAt } = await loadContext(viewer, raw);
  const detail = tenantScopeOf(viewer) ? redactForTenant(raw) : raw;
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

/**
 * The job page. The first view is rendered here from the database; the client
 * then keeps it live by polling GET /api/jobs/[id] for the same JobDetail.
 * Another tenant's job is "not found", exactly like a job that does not exist.
 */
export default async function JobPage({ params }: Props) {
  const { id } = await params;
  const viewer = await requirePage("jobs:read", `/jobs/${encodeURIComponent(id)}`);
  // getJobDetail answers null for a malformed id as well as a missing (or invisible) job.
  // A piece of an id (its end, as the console prints it, or its start) opens its job when only one
  // id matches, and the list of its matches otherwise.
  const asked = safeDecode(id);
  const q = isUuid(asked) ? null : idQueryOf(asked);
  if (q?.kind === "id") redirect(`/jobs/${q.id}`);
  if (q?.kind === "piece") {
    const matches = await withViewerRead(viewer, (tx) => execute<{ id: string }>(tx, sql`SELECT id FROM (${idPieceIds(q, 2)}) m LIMIT 2`));
    if (matches.length === 1) redirect(`/jobs/${matches[0]!.id}`);
    if (matches.length > 1) redirect(`/jobs?q=${encodeURIComponent(asked.trim().toLowerCase())}`);
    notFound();
  }
  // Whether the job exists for this viewer is decided before anything streams (a 404 keeps its
  // status); the comparison behind "why was this slow" is read while its skeleton shows.
  const raw = await withViewer(viewer, (tx) => getJobDetail(tx, id, { stacks: !tenantScopeOf(viewer) }));
  if (!raw) notFound();
  return (
    <Suspense fallback={<PageLoading title={`Job ${shortId(raw.job.id)}`} what="the job's history" shape="job" />}>
      <JobWithContext viewer={viewer} raw={raw} />
    </Suspense>
  );
}

/** A path segment as typed; one that is not valid percent-encoding as it came. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
