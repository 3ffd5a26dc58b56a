import type { Metadata } from "next";
import { can } from "@/lib/auth/permissions";
import { requirePage } from "@/lib/auth/viewer";
import { firstView } from "@/lib/edge/first-view";
import type { QueuesResponse } from "@/lib/client/wire";
import { listQueues } from "@/lib/jobs/queue-stats";
import { QueuesView } from "./queues-view";

export const metadata: Metadata = { title: "Queues" };
export const dynamic = "force-dynamic";

/** Staff see every queue; operators also change them. The browser then polls GET /api/queues. */
export default async function QueuesPage() {
  const viewer = await requirePage("insight:read", "/queues");
  const { initial, readAt } = await firstView<QueuesResponse>(viewer, "queues", listQueues);
  return <QueuesView initial={initial} renderedAt={readAt} canOperate={can(viewer, "jobs:operate")} />;
}
