import type { Metadata } from "next";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { can } from "@/lib/auth/permissions";
import { requirePage, type Viewer } from "@/lib/auth/viewer";
import { firstView } from "@/lib/frame/first-view";
import type { QueuesResponse } from "@/lib/client/wire";
import { listQueues, queuePageOf, type QueuePageRequest } from "@/lib/jobs/queue-stats";
import { AppError } from "@/lib/result";
import { QueuesView } from "./queues-view";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Queues" };
export const dynamic = "force-dynamic";

/** Staff see every queue, a page at a time, and search them by name; operators also change them. The browser then polls GET /api/queues. */
export default async function QueuesPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("insight:read", "/queues");
  let request: QueuePageRequest = {};
  let problem: string | null = null;
  try {
    request = queuePageOf(await searchParams);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    problem = err.userMessage;
  }
  // Who may see it is decided before anything streams (a 404 keeps its status); the list streams in.
  return (
    <Suspense fallback={<PageLoading title="Queues" what="the queues" />}>
      <QueuesWithData viewer={viewer} request={request} problem={problem} />
    </Suspense>
  );
}

async function QueuesWithData({ viewer, request, problem }: { viewer: Viewer; request: QueuePageRequest; problem: string | null }) {
  const { initial, renderedAt } = await firstView<QueuesResponse>(viewer, "/queues", (tx) => listQueues(tx, request));
  return <QueuesView initial={initial} renderedAt={renderedAt} canOperate={can(viewer, "jobs:operate")} request={request} problem={problem} />;
}
