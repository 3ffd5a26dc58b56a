import type { Metadata } from "next";
import { can } from "@/lib/auth/permissions";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { requirePage, type Viewer } from "@/lib/auth/viewer";
import { firstView } from "@/lib/frame/first-view";
import { listWorkers } from "@/lib/insight/queries";
import type { WorkersResponse } from "@/lib/client/wire";
import { WorkersView } from "./workers-view";

export const metadata: Metadata = { title: "Workers" };
export const dynamic = "force-dynamic";

/** The first view is rendered here; the browser then polls GET /api/insight/workers. */
export default async function WorkersPage() {
  const viewer = await requirePage("insight:read", "/workers");
  // Who may see it is decided before anything streams (a 404 keeps its status); the workers stream in.
  return (
    <Suspense fallback={<PageLoading title="Workers" what="the workers" />}>
      <WorkersWithData viewer={viewer} />
    </Suspense>
  );
}

async function WorkersWithData({ viewer }: { viewer: Viewer }) {
  const { initial, renderedAt } = await firstView<WorkersResponse>(viewer, "/workers", async (tx) => ({ workers: await listWorkers(tx) }));
  return <WorkersView initial={initial} renderedAt={renderedAt} canOperate={can(viewer, "jobs:operate")} />;
}
