import { consoleRoute } from "@/lib/frame/route";
import { recentChecks } from "@/lib/integrity/check";

export const dynamic = "force-dynamic";

/** The most recent integrity checks with their mismatches (job ids and what disagreed). */
export const GET = consoleRoute({
  permission: "audit:read",
  reads: "primary",
  failed: "Could not list the checks: the database did not answer. Details are in the server log.",
  read: async ({ tx }) => ({ checks: await recentChecks(tx, 20) }),
});
