"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { healthQuery } from "@/lib/client/queries";

/** While a page failed, how often it asks whether the database answers again. */
const CHECK_MS = 3_000;
/** After the database was seen down, how long and how many times a failed page is rendered again by itself. */
const RECOVERY_MS = 60_000;
const RECOVERY_TRIES = 5;
/**
 * Kept across mounts: a retry that fails again (a connection still refused as the database comes
 * back) renders a new PageError, which must still know the database was just down, and must not
 * retry forever a page that fails for another reason.
 */
const recovery = { downAt: 0, tries: 0 };

/**
 * A page that failed to render (app/error.tsx). It asks the health check why: when the database is
 * not answering it says so — the page will come back by itself, nothing is lost — and renders the
 * page again as soon as the database answers; otherwise it says the page failed, with the reference
 * of the server's log line. Never a stack or an SQL error: the server keeps those in its log.
 */
export function PageError({ digest, retry }: { digest?: string; retry: () => void }) {
  const health = useQuery({ ...healthQuery(), refetchInterval: CHECK_MS });
  const status = health.data?.status;
  const down = status === "database";
  const away = status === "unreachable";
  // "Up" as of a check made soon after the database was seen down (dataUpdatedAt: when that check answered).
  const recovering = status === "up" && health.dataUpdatedAt - recovery.downAt < RECOVERY_MS && recovery.tries < RECOVERY_TRIES;
  useEffect(() => {
    if (!down && !away) return;
    recovery.downAt = health.dataUpdatedAt;
    recovery.tries = 0;
  }, [down, away, health.dataUpdatedAt]);
  useEffect(() => {
    if (!recovering) return;
    // The first retry at once; one that failed again waits for the next check's interval.
    const timer = setTimeout(
      () => {
        recovery.tries++;
        retry();
      },
      recovery.tries === 0 ? 0 : CHECK_MS,
    );
    return () => clearTimeout(timer);
  }, [recovering, retry]);

  return (
    <section
      role="alert"
      aria-labelledby="page-error-title"
      className={`rounded-lg border p-6 ${down || away ? "border-amber-300 bg-amber-50" : "border-red-200 bg-red-50"}`}
    >
      <h1 id="page-error-title" className="text-lg font-semibold text-neutral-900">
        {down ? "The database is unreachable" : away ? "The console's server cannot be reached" : "This page could not be shown"}
      </h1>
      <div className="mt-2 max-w-2xl space-y-2 text-sm text-neutral-800">
        {down && (
          <>
            <p>Jobscope cannot reach its PostgreSQL database right now, so this page cannot be read.</p>
            <p>
              It will recover by itself: nothing submitted is lost, and the workers and the supervisor reconnect on their own when the database is
              back. This page checks every {CHECK_MS / 1000} s and reloads itself as soon as the database answers.
            </p>
          </>
        )}
        {away && <p>Check your connection, or whether the console is running. This page reloads itself once the server answers.</p>}
        {!down && !away && (
          <p>
            {recovering
              ? "The database answers again: loading this page… "
              : status === "up"
                ? "The database answers, but the server failed to build this page. "
                : "Checking whether the database answers… "}
            Details are in the server log{digest ? ` (reference ${digest})` : ""}.
          </p>
        )}
      </div>
      <button
        type="button"
        onClick={retry}
        className="mt-4 rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-800 shadow-xs hover:bg-neutral-50"
      >
        Try again now
      </button>
    </section>
  );
}
