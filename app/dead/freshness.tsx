"use client";

import { useSyncExternalStore } from "react";

// The overview's freshness indicator, for this page. Candidates for components/
// once a third page polls (see the report that came with this page).

export function Freshness({ updatedAt, isPaused, isFailing }: { updatedAt: number | null; isPaused: boolean; isFailing: boolean }) {
  const now = useNow();
  // The clock ticks once a second and may lag a response by up to a second: never show a negative age.
  const age = updatedAt === null || now === 0 ? null : Math.max(0, Math.round((now - updatedAt) / 1000));
  return (
    <p className="flex items-center gap-2 text-sm text-neutral-500">
      <span
        aria-hidden="true"
        className={`size-2 rounded-full ${
          isPaused ? "bg-amber-400" : isFailing ? "bg-red-500" : "bg-emerald-500 motion-safe:animate-pulse"
        }`}
      />
      <span className="font-medium text-neutral-700">{isPaused ? "Paused" : isFailing ? "Not updating" : "Live"}</span>
      {age !== null && <span className="tabular-nums">Updated {age < 60 ? `${age} s` : `${Math.floor(age / 60)} min`} ago</span>}
    </p>
  );
}

export function PauseButton({ isPaused, onToggle }: { isPaused: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      aria-pressed={isPaused}
      onClick={onToggle}
      className={`inline-flex items-center gap-2 rounded-md border px-3 py-1.5 text-sm font-medium shadow-xs ${
        isPaused
          ? "border-amber-300 bg-amber-50 text-amber-900 hover:bg-amber-100"
          : "border-neutral-300 bg-white text-neutral-700 hover:bg-neutral-50"
      }`}
    >
      <svg aria-hidden="true" viewBox="0 0 16 16" className="size-4" fill="currentColor">
        <rect x="4" y="3" width="3" height="10" rx="1" />
        <rect x="9" y="3" width="3" height="10" rx="1" />
      </svg>
      Pause updates
    </button>
  );
}

// A once-a-second clock shared by every subscriber. The server snapshot is 0,
// so no age is rendered on the server (it would differ from the browser's).
let clock = 0;
function subscribeClock(onTick: () => void) {
  clock = Date.now();
  const id = setInterval(() => {
    clock = Date.now();
    onTick();
  }, 1_000);
  return () => clearInterval(id);
}

function useNow() {
  return useSyncExternalStore(
    subscribeClock,
    () => clock,
    () => 0,
  );
}
