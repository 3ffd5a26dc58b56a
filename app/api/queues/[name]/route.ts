import type { QueueStatusResponse } from "@/lib/client/wire";
import { QUEUE_NAME } from "@/lib/jobs/queues";
import { getQueueStatus } from "@/lib/jobs/queue-stats";
import { failure, insightGet } from "../../insight/respond";

export const dynamic = "force-dynamic";

/**
 * Whether one queue is paused (the banner over its jobs). Every role that reads jobs may ask;
 * a tenant member learns that it is paused, not who paused it.
 */
export async function GET(_req: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return insightGet("the queue", "jobs:read", async (tx, viewer) => {
    if (!QUEUE_NAME.test(name)) return failure(400, "invalid_input", "Not a queue name.");
    const s = await getQueueStatus(tx, name);
    const staff = viewer.role !== "tenant";
    const body: QueueStatusResponse = {
      name: s.name,
      paused: s.paused,
      pausedAt: s.pausedAt?.toISOString() ?? null,
      pausedBy: staff ? s.pausedBy : null,
      concurrencyLimit: s.concurrencyLimit,
      fair: s.fair,
      at: new Date().toISOString(),
    };
    return body;
  });
}
