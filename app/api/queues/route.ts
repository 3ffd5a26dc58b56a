import type { QueuesResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";
import { listQueues, queuePageOf } from "@/lib/jobs/queue-stats";

export const dynamic = "force-dynamic";

/** One page of the queues (`?q=` searches names, `?after=` pages on) with their depth, latency, last hour, workers and settings: the queues page polls it. */
export const GET = consoleRoute({
  permission: "insight:read",
  input: (request) => queuePageOf(request.nextUrl.searchParams),
  failed: "Could not load the queues: the database did not answer. Details are in the server log.",
  read: async ({ tx, input }) => JSON.parse(JSON.stringify({ ...(await listQueues(tx, input)), at: new Date().toISOString() })) as QueuesResponse,
});
