import type { SchedulesResponse } from "@/lib/client/wire";
import { listSchedules } from "@/lib/schedules/list";
import { insightGet } from "../insight/respond";

export const dynamic = "force-dynamic";

/** Every schedule with its next ticks and last runs (the schedules page polls it). */
export async function GET() {
  return insightGet("the schedules", "insight:read", async (tx) => {
    const body: SchedulesResponse = JSON.parse(JSON.stringify({ schedules: await listSchedules(tx), at: new Date().toISOString() })) as SchedulesResponse;
    return body;
  });
}
