"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { healthQuery, keys, type Health } from "@/lib/client/queries";

/** One `SELECT 1` per open tab this often: an outage shows within a few seconds even on a page that polls nothing. */
const UP_POLL_MS = 5_000;
const DOWN_POLL_MS = 3_000;
/** A failing poll of the page asks the health check at once, at most this often. */
const ASK_EVERY_MS = 1_000;

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
 * one-query health check every 5 s (every 3 s while something is down), and at once when one of the
 * page's own polls fails; it disappears once all is back.
 */
export function DbStatusBanner() {
  const client = useQueryClient();
  // Any of the page's own polls failing is the earliest sign of an outage: ask the health check now.
  useEffect(() => {
    let last = 0;
    return client.getQueryCache().subscribe((e) => {
      if (e.type !== "updated" || e.action.type !== "error" || e.query.queryKey[0] === keys.health()[0]) return;
      if (Date.now() - last < ASK_EVERY_MS) return;
      last = Date.now();
      void client.refetchQueries({ queryKey: keys.health() });
    });
  }, [client]);
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
