import type { BulkProgressWire } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";
import { getBulkProgress } from "@/lib/jobs/bulk";
import { AppError } from "@/lib/result";

export const dynamic = "force-dynamic";

/** How far a bulk action has got: polled by the progress panel until it is done. */
export const GET = consoleRoute<{ id: string }, undefined, BulkProgressWire>({
  permission: "jobs:operate",
  reads: "primary",
  failed: "Could not read the bulk action's progress. Details are in the server log.",
  read: async ({ tx, params }) => {
    const progress = await getBulkProgress(tx, params.id);
    if (!progress) throw new AppError("not_found", "There is no such bulk action.");
    return { ...progress, createdAt: progress.createdAt.toISOString(), finishedAt: progress.finishedAt?.toISOString() ?? null };
  },
});
