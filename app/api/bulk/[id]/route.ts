import type { OperationResult } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";
import { getBulkProgress } from "@/lib/jobs/bulk";
import { AppError } from "@/lib/result";

export const dynamic = "force-dynamic";

/** How far a durable operation has got: polled by the operation's result view until it is over. */
export const GET = consoleRoute<{ id: string }, undefined, OperationResult>({
  permission: "jobs:operate",
  reads: "primary",
  failed: "Could not read the operation's progress. Details are in the server log.",
  read: async ({ tx, params }) => {
    const p = await getBulkProgress(tx, params.id);
    if (!p) throw new AppError("not_found", "There is no such operation.");
    const { id, event, description, status, total, done, applied, refused } = p;
    return { operationId: id, event, description, status, total, done, applied, refused, jobs: [] };
  },
});
