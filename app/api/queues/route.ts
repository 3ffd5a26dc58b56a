import type { QueuesResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/edge/route";
import { listQueues } from "@/lib/jobs/queue-stats";

export const dynamic = "force-dynamic";

/** Every queue with its depth, latency, last hour, workers and settings (the queues page polls it). */
export const GET = consoleRoute({
  permission: "insight:read",
  failed: "Could not load the queues: the database did not answer. Details are in the server log.",
  read: async ({ tx }) => JSON.parse(JSON.stringify({ queues: await listQueues(tx), at: new Date().toISOString() })) as QueuesResponse,
});
