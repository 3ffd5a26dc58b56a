"use client";

import { useQuery } from "@tanstack/react-query";
import { healthQuery, type Health } from "@/lib/client/queries";

const UP_POLL_MS = 15_000;
const DOWN_POLL_MS = 3_000;

const HEADLINES: Record<Exclude<Health["status"], "up">, string> = {
  database: "The database is not answering.",
  server: "The console's server is failing.",
  unreachable: "The console's server cannot be reached.",
};

function detail(h: Exclude<Health, { status: "up" }>): string {
  if (h.status === "database")
    return "Pages keep the data they last loaded; actions will fail until it is back. Jobs are not lost: workers and the supervisor reconnect on their own.";
  if (h.status === "server")
    return `Its health check answered HTTP ${h.httpStatus}: the database may be fine, but pages and actions can fail. Details are in the server log.`;
  return "Check your connection, or whether the console is running. Pages keep the data they last loaded.";
}

/**
 * On every page: when the database or the console's server stops answering,
 * say which, plainly, instead of letting each panel fail on its own. Polls a
 * one-query health check, faster while something is down, and disappears once all is back.
 */
export function DbStatusBanner() {
  const query = useQuery({
    ...healthQuery(),
    refetchInterval: (q) => (q.state.data && q.state.data.status !== "up" ? DOWN_POLL_MS : UP_POLL_MS),
    refetchOnWindowFocus: true,
  });
  const health = query.data;
  if (!health || health.status === "up") return null;
  return (
    <div role="alert" aria-label="Outage" data-testid="db-status-banner" className="border-b border-amber-300 bg-amber-100 text-amber-950">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-2 text-sm sm:px-6">
        <span className="font-semibold">{HEADLINES[health.status]}</span>
        <span>
          {detail(health)} Checking again every {DOWN_POLL_MS / 1000} s…
        </span>
      </div>
    </div>
  );
}
