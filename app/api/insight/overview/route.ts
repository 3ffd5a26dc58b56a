import { consoleRoute } from "@/lib/edge/route";
import { busiestErrors, latencyByType, poisonSuspects, recentRejections, throughput } from "@/lib/insight/queries";
import { parseWindow } from "@/lib/insight/windows";

export const dynamic = "force-dynamic";

/** The overview's charts and tables for one window; each query reads only that window (lib/insight/queries.ts). */
export const GET = consoleRoute({
  permission: "insight:read",
  input: (request) => parseWindow(request.nextUrl.searchParams.get("window")),
  failed: "Could not load the overview: the database did not answer. Details are in the server log.",
  read: async ({ tx, input: window }) => {
    const now = new Date();
    // One transaction: the queries run one after another on its connection.
    const series = await throughput(tx, window, now);
    const latency = await latencyByType(tx, window, now);
    const errors = await busiestErrors(tx, window, now);
    const poison = await poisonSuspects(tx, now);
    const rejections = await recentRejections(tx);
    return { window, series, latency, errors, poison, rejections, at: now.toISOString() };
  },
});
