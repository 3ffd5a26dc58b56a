import type { Metadata } from "next";
import { requirePage, type Viewer, withViewerRead } from "@/lib/auth/viewer";
import { listWorkers } from "@/lib/insight/queries";
import type { WorkersResponse } from "@/lib/client/wire";
import { WorkersView } from "./workers-view";

export const metadata: Metadata = { title: "Workers" };
export const dynamic = "force-dynamic";

/** The first view is rendered here; the browser then polls GET /api/insight/workers. */
export default async function WorkersPage() {
  const viewer = await requirePage("insight:read", "/workers");
  const { initial, readAt } = await load(viewer);
  return <WorkersView initial={initial} renderedAt={readAt} />;
}

/** The workers as the API would answer, and when they were read. */
async function load(viewer: Viewer): Promise<{ initial: WorkersResponse | null; readAt: number }> {
  try {
    const workers = await withViewerRead(viewer, (tx) => listWorkers(tx));
    // Through JSON, so the first view has exactly the shape every poll has.
    return { initial: JSON.parse(JSON.stringify({ workers, at: new Date().toISOString() })) as WorkersResponse, readAt: Date.now() };
  } catch (err) {
    console.error("/workers: could not list workers:", err);
    return { initial: null, readAt: Date.now() };
  }
}
