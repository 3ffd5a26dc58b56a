import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { currentActor } from "@/lib/auth/actor";
import { pool } from "@/lib/db/client";
import { getJobDetail } from "@/lib/jobs/queries";
import { JobDetailView } from "./job-detail-view";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Job ${id.slice(0, 8)}` };
}

/** The job's detail and when it was read: the page's "updated n s ago" and its clock start there. */
async function load(id: string) {
  const detail = await getJobDetail(pool(), id);
  return { detail, readAt: Date.now() };
}

/**
 * The job page. The first view is rendered here from the database; the client
 * then keeps it live by polling GET /api/jobs/[id] for the same JobDetail.
 */
export default async function JobPage({ params }: Props) {
  const { id } = await params;
  // getJobDetail answers null for a malformed id as well as a missing job.
  const { detail, readAt } = await load(id);
  if (!detail) notFound();
  const actor = await currentActor();
  return <JobDetailView id={detail.job.id} initial={detail} renderedAt={readAt} actorKind={actor.kind} />;
}
