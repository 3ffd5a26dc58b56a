"use client";

import { useQuery } from "@tanstack/react-query";

const UP_POLL_MS = 15_000;
const DOWN_POLL_MS = 3_000;

type Health = { ok: true; latencyMs: number } | { ok: false };

async function ping(signal: AbortSignal): Promise<Health> {
  try {
    const res = await fetch("/api/integrity/health", { signal, cache: "no-store" });
    return res.ok ? ((await res.json()) as Health) : { ok: false };
  } catch {
    // The console's server itself is unreachable: as far as this page can tell, same outage.
    if (signal.aborted) throw new Error("aborted");
    return { ok: false };
  }
}

/**
 * On every page: when the database stops answering, say so plainly instead of
 * letting each panel fail on its own. Polls a one-query health check, faster
 * while it is down, and disappears when the database is back.
 */
export function DbStatusBanner() {
  const query = useQuery({
    queryKey: ["db-health"] as const,
    queryFn: ({ signal }) => ping(signal),
    refetchInterval: (q) => (q.state.data?.ok === false ? DOWN_POLL_MS : UP_POLL_MS),
    refetchOnWindowFocus: true,
    retry: false,
  });
  if (query.data?.ok !== false) return null;
  return (
    <div role="alert" aria-label="Database unavailable" data-testid="db-status-banner" className="border-b border-amber-300 bg-amber-100 text-amber-950">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-2 text-sm sm:px-6">
        <span className="font-semibold">The database is not answering.</span>
        <span>
          Pages keep the data they last loaded; actions will fail until it is back. Jobs are not lost: workers and the supervisor
          reconnect on their own. Checking again every {DOWN_POLL_MS / 1000} s…
        </span>
      </div>
    </div>
  );
}
