import type { Metadata } from "next";
import { can } from "@/lib/auth/permissions";
import { requirePage } from "@/lib/auth/viewer";
import { firstView } from "@/lib/edge/first-view";
import { listWorkers } from "@/lib/insight/queries";
import type { WorkersResponse } from "@/lib/client/wire";
import { WorkersView } from "./workers-view";

export const metadata: Metadata = { title: "Workers" };
export const dynamic = "force-dynamic";

/** The first view is rendered here; the browser then polls GET /api/insight/workers. */
export default async function WorkersPage() {
  const viewer = await requirePage("insight:read", "/workers");
  const { initial, readAt } = await firstView<WorkersResponse>(viewer, "workers", listWorkers);
  return <WorkersView initial={initial} renderedAt={readAt} canOperate={can(viewer, "jobs:operate")} />;
}
