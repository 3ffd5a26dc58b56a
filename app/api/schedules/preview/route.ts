import type { NextRequest } from "next/server";
import { consoleRoute } from "@/lib/frame/route";
import type { CronPreview } from "@/lib/client/wire";
import { checkCron, describeCron, upcomingTicks } from "@/lib/schedules/cron";

export const dynamic = "force-dynamic";

/** How many of the next ticks the schedule form shows as the expression is typed. */
const SHOWN = 5;

const input = (request: NextRequest) => ({
  cron: (request.nextUrl.searchParams.get("cron") ?? "").slice(0, 200),
  timeZone: (request.nextUrl.searchParams.get("timeZone") ?? "UTC").slice(0, 100),
});

/**
 * A cron expression as the schedule form shows it while it is typed: in words, and its next ticks in
 * its zone — or why it would be refused (the same check the save makes). Reads nothing stored.
 */
export const GET = consoleRoute({
  permission: "insight:read",
  input,
  failed: "Could not read the expression.",
  read: async ({ input: { cron, timeZone } }): Promise<CronPreview> => {
    const c = checkCron(cron, timeZone);
    if (!c.ok) return { ok: false, message: c.message, description: describeCron(cron) };
    return { ok: true, description: describeCron(cron), next: upcomingTicks(cron, timeZone, new Date(), SHOWN).map((d) => d.toISOString()) };
  },
});
