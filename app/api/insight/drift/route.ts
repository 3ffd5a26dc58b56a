import { consoleRoute } from "@/lib/frame/route";
import { driftStatus } from "@/lib/insight/queries";

export const dynamic = "force-dynamic";

/** Polled by the drift alarm on every page: one index range on (kind, at), usually empty. */
export const GET = consoleRoute({
  permission: "insight:read",
  failed: "Could not load the drift status: the database did not answer. Details are in the server log.",
  read: ({ tx }) => driftStatus(tx),
});
