import type { QueueStatusResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";
import { QUEUE_NAME } from "@/lib/jobs/queues";
import { getQueueStatus } from "@/lib/jobs/queue-stats";
import { AppError } from "@/lib/result";

export const dynamic = "force-dynamic";

/**
 * Whether one queue is paused (the banner over its jobs). Every role that reads jobs may ask;
 * a tenant member learns that it is paused, not who paused it.
 */
export const GET = consoleRoute<{ name: string }, string, QueueStatusResponse>({
  permission: "jobs:read",
  input: (_request, { name }) => {
    if (!QUEUE_NAME.test(name)) throw new AppError("invalid_input", "Not a queue name.");
    return name;
  },
  failed: "Could not load the queue: the database did not answer. Details are in the server log.",
  read: async ({ tx, viewer, input: name }) => {
    const s = await getQueueStatus(tx, name);
    const staff = viewer.role !== "tenant";
    return {
      name: s.name,
      paused: s.paused,
      pausedAt: s.pausedAt?.toISOString() ?? null,
      pausedBy: staff ? s.pausedBy : null,
      concurrencyLimit: s.concurrencyLimit,
      fair: s.fair,
      at: new Date().toISOString(),
    };
  },
});
