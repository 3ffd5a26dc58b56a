import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { actorOf, requirePage, withViewer, type Viewer } from "@/lib/auth/viewer";
import { getJobDetail } from "@/lib/jobs/queries";
import { JobDetailView } from "./job-detail-view";
import { shortId } from "@/lib/jobs/short-id";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Job ${shortId(id)}` };
}

/** The job's detail and when it was read: the page's "updated n s ago" and its clock start there. */
async function load(viewer: Viewer, id: string) {
  const detail = await withViewer(viewer, (tx) => getJobDetail(tx, id));
  return { detail, readAt: Date.now() };
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
  const { detail, readAt } = await load(viewer, id);
  if (!detail) notFound();
  return <JobDetailView id={detail.job.id} initial={detail} renderedAt={readAt} actorKind={actorOf(viewer)?.kind ?? null} />;
}
