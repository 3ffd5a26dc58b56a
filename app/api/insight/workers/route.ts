import { consoleRoute } from "@/lib/frame/route";
import { listWorkers } from "@/lib/insight/queries";

export const dynamic = "force-dynamic";

export const GET = consoleRoute({
  permission: "insight:read",
  failed: "Could not load the workers: the database did not answer. Details are in the server log.",
  read: async ({ tx }) => ({ workers: await listWorkers(tx), at: new Date().toISOString() }),
});
