import { consoleRoute } from "@/lib/edge/route";
import { recentAudits } from "@/lib/integrity/audit";

export const dynamic = "force-dynamic";

/** The most recent integrity audits with their mismatches (job ids and what disagreed). */
export const GET = consoleRoute({
  permission: "audit:read",
  reads: "primary",
  failed: "Could not list the audits: the database did not answer. Details are in the server log.",
  read: async ({ tx }) => ({ audits: await recentAudits(tx, 20) }),
});
