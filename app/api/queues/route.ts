import type { QueuesResponse } from "@/lib/client/wire";
import { listQueues } from "@/lib/jobs/queue-stats";
import { insightGet } from "../insight/respond";

export const dynamic = "force-dynamic";

/** Every queue with its depth, latency, last hour, workers and settings (the queues page polls it). */
export async function GET() {
  return insightGet("the queues", "insight:read", async (tx) => {
    const body: QueuesResponse = JSON.parse(JSON.stringify({ queues: await listQueues(tx), at: new Date().toISOString() })) as QueuesResponse;
    return body;
  });
}
