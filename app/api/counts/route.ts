import type { CountsResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/edge/route";
import { countByState } from "@/lib/jobs/queries";
import { STATES, type JobState } from "@/lib/fsm/table";

// Polled live by the overview: never prerendered at build time, never cached.
export const dynamic = "force-dynamic";

export const GET = consoleRoute({
  permission: "jobs:read",
  failed: "Could not count jobs: the database did not answer. Details are in the server log.",
  read: async ({ tx, viewer }): Promise<CountsResponse> => {
    const byState = await countByState(tx, viewer.role === "tenant" ? { tenant: viewer.tenantId ?? "" } : {});
    const counts = Object.fromEntries(STATES.map((s) => [s, byState[s].n])) as Record<JobState, number>;
    const capped = STATES.filter((s) => byState[s].capped);
    const total = STATES.reduce((sum, state) => sum + counts[state], 0);
    return { counts, capped, total, at: new Date().toISOString() };
  },
});
