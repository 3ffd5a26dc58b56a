import type { SchedulesResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";
import { listSchedules } from "@/lib/schedules/list";

export const dynamic = "force-dynamic";

/** Every schedule with its next ticks and last runs (the schedules page polls it). */
export const GET = consoleRoute({
  permission: "insight:read",
  failed: "Could not load the schedules: the database did not answer. Details are in the server log.",
  read: async ({ tx }) => JSON.parse(JSON.stringify({ schedules: await listSchedules(tx), at: new Date().toISOString() })) as SchedulesResponse,
});
