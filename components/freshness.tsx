"use client";

import { freshnessOf } from "@/lib/client/freshness";
import { formatAgo } from "@/lib/time-format";
import { useNow } from "./use-now";

const LOOK = {
  live: { dot: "bg-emerald-500 motion-safe:animate-pulse", label: "Live" },
  // Polls answer, but later than they should: the dot turns amber and says so.
  behind: { dot: "bg-amber-500", label: "Live, falling behind" },
  paused: { dot: "bg-amber-400", label: "Paused" },
  failing: { dot: "bg-red-500", label: "Not updating" },
} as const;

/**
 * Live / Live, falling behind / Paused / Not updating, and how old the data on screen is: the strip
 * at the top of every polled page. `pollMs` (how often it polls) tells when the data is older than
 * its polls should leave it (lib/client/freshness.ts). `serverNow` is for a page whose server render
 * already has data (see useNow); without it the age appears once the browser's clock ticks.
 */
export function Freshness({
  updatedAt,
  isPaused,
  isFailing,
  serverNow,
  pollMs,
}: {
  /** When the data on screen arrived (TanStack's `dataUpdatedAt`); null while there is none. */
  updatedAt: number | null;
  isPaused: boolean;
  isFailing: boolean;
  serverNow?: number;
  pollMs?: number;
}) {
  const now = useNow({ serverNow });
  // The clock ticks once a second and may lag a response by up to a second: formatAgo never shows a negative age.
  const age = updatedAt === null || now === 0 ? null : now - updatedAt;
  const look = LOOK[freshnessOf({ updatedAt, now, pollMs, isPaused, isFailing })];
  return (
    <p className="flex items-center gap-2 text-sm text-neutral-600" data-testid="freshness">
      <span aria-hidden="true" className={`size-2 rounded-full ${look.dot}`} />
      <span className="font-medium text-neutral-700">{look.label}</span>
      {age !== null && <span className="tabular-nums">Updated {formatAgo(age)}</span>}
    </p>
  );
}

/**
 * Stops and restarts a page's polling. It says what it will do: "Pause updates"
 * while live, "Resume updates" while paused.
 */
export function PauseButton({ isPaused, onToggle }: { isPaused: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      onClick={onToggle}
      className={`inline-flex items-center gap-2 rounded-md border px-3 py-1.5 text-sm font-medium shadow-xs ${
        isPaused
          ? "border-amber-300 bg-amber-50 text-amber-900 hover:bg-amber-100"
          : "border-neutral-300 bg-white text-neutral-700 hover:bg-neutral-50"
      }`}
    >
      <svg aria-hidden="true" viewBox="0 0 16 16" className="size-4" fill="currentColor">
        {isPaused ? (
          <path d="M5 3.5v9l7.5-4.5z" />
        ) : (
          <>
            <rect x="4" y="3" width="3" height="10" rx="1" />
            <rect x="9" y="3" width="3" height="10" rx="1" />
          </>
        )}
      </svg>
      {isPaused ? "Resume updates" : "Pause updates"}
    </button>
  );
}
