"use client";

import { useState, type ReactNode } from "react";
import { Freshness, PauseButton } from "./freshness";

/**
 * A polled page's pause switch and the query options that follow it: paused
 * means frozen, with no refresh on tab focus either.
 */
export function useLive(pollMs: number) {
  const [isPaused, setIsPaused] = useState(false);
  return {
    isPaused,
    pollMs,
    toggle: () => setIsPaused((p) => !p),
    poll: { refetchInterval: isPaused ? (false as const) : pollMs, refetchOnWindowFocus: !isPaused },
  };
}

/**
 * Whether the latest answer was a failure. Not `query.isError`: with no data yet, TanStack
 * resets the status to pending at every retry, and the page would flicker.
 */
export const isFailingOf = (q: { errorUpdatedAt: number; dataUpdatedAt: number }) => q.errorUpdatedAt > q.dataUpdatedAt;

type Live = { updatedAt: number | null; isPaused: boolean; isFailing: boolean; onToggle: () => void; serverNow?: number; pollMs?: number };

/** A page's title, what it shows, and for a live page its freshness and pause switch. */
export function PageHeader({ title, description, live, children }: { title: string; description?: ReactNode; live?: Live; children?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {description && <div className="mt-1 max-w-3xl text-sm text-neutral-600">{description}</div>}
      </div>
      {(live || children) && (
        <div className="flex flex-wrap items-center gap-3">
          {children}
          {live && (
            <>
              <Freshness
                updatedAt={live.updatedAt}
                serverNow={live.serverNow}
                isPaused={live.isPaused}
                isFailing={live.isFailing}
                pollMs={live.pollMs}
              />
              <PauseButton isPaused={live.isPaused} onToggle={live.onToggle} />
            </>
          )}
        </div>
      )}
    </div>
  );
}
