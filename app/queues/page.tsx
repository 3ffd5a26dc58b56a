import type { Metadata } from "next";
import { can } from "@/lib/auth/permissions";
import { requirePage, type Viewer, withViewerRead } from "@/lib/auth/viewer";
import type { QueuesResponse } from "@/lib/client/wire";
import { listQueues } from "@/lib/jobs/queue-stats";
import { QueuesView } from "./queues-view";

export const metadata: Metadata = { title: "Queues" };
export const dynamic = "force-dynamic";

/** Staff see every queue; operators also change them. The browser then polls GET /api/queues. */
export default async function QueuesPage() {
  const viewer = await requirePage("insight:read", "/queues");
  const { initial, readAt } = await load(viewer);
  return <QueuesView initial={initial} renderedAt={readAt} canOperate={can(viewer, "jobs:operate")} />;
}

async function load(viewer: Viewer): Promise<{ initial: QueuesResponse | null; readAt: number }> {
  try {
    const queues = await withViewerRead(viewer, (tx) => listQueues(tx));
    // Through JSON, so the first view has exactly the shape every poll has.
    return { initial: JSON.parse(JSON.stringify({ queues, at: new Date().toISOString() })) as QueuesResponse, readAt: Date.now() };
  } catch (err) {
    console.error("/queues: could not list queues:", err);
    return { initial: null, readAt: Date.now() };
  }
}
