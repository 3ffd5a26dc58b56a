import "server-only";
import type { Viewer } from "@/lib/auth/viewer";
import type { CountsResponse, OverviewResponse } from "@/lib/client/wire";
import type { Db } from "@/lib/db/client";
import { STATES, type JobState } from "@/lib/fsm/table";
import { busiestErrors, latencyByType, poisonSuspects, recentRejections, throughput } from "@/lib/insight/queries";
import type { WindowKey } from "@/lib/insight/windows";
import { countByState } from "@/lib/jobs/queries";

/**
 * The overview's two reads — the counts by state and a window's charts — as the page renders them
 * first on the server and as GET /api/counts and /api/insight/overview answer every poll after: one
 * function each, so the first paint and the polls cannot differ. Answers are the wire's JSON shapes.
 */
export async function readCounts(tx: Db, viewer: Viewer): Promise<CountsResponse> {
  const byState = await countByState(tx, viewer.role === "tenant" ? { tenant: viewer.tenantId ?? "" } : {});
  const counts = Object.fromEntries(STATES.map((s) => [s, byState[s].n])) as Record<JobState, number>;
  const capped = STATES.filter((s) => byState[s].capped);
  const total = STATES.reduce((sum, state) => sum + counts[state], 0);
  return { counts, capped, total, at: new Date().toISOString() };
}

/** A window's charts and tables; each query reads only that window (lib/insight/queries.ts). */
export async function readOverview(tx: Db, window: WindowKey): Promise<OverviewResponse> {
  const now = new Date();
  // One transaction: the queries run one after another on its connection.
  const series = await throughput(tx, window, now);
  const latency = await latencyByType(tx, window, now);
  const errors = await busiestErrors(tx, window, now);
  const poison = await poisonSuspects(tx, now);
  const rejections = await recentRejections(tx);
  return JSON.parse(JSON.stringify({ window, series, latency, errors, poison, rejections, at: now.toISOString() })) as OverviewResponse;
}
