import { busiestErrors, latencyByType, poisonSuspects, recentRejections, throughput } from "@/lib/insight/queries";
import { parseWindow } from "@/lib/insight/windows";
import { insightGet } from "../respond";

export const dynamic = "force-dynamic";

/** The overview's charts and tables for one window; each query reads only that window (lib/insight/queries.ts). */
export async function GET(request: Request) {
  const window = parseWindow(new URL(request.url).searchParams.get("window"));
  return insightGet("the overview", "insight:read", async (tx) => {
    const now = new Date();
    // One transaction: the queries run one after another on its connection.
    const series = await throughput(tx, window, now);
    const latency = await latencyByType(tx, window, now);
    const errors = await busiestErrors(tx, window, now);
    const poison = await poisonSuspects(tx, now);
    const rejections = await recentRejections(tx);
    return { window, series, latency, errors, poison, rejections, at: now.toISOString() };
  });
}
