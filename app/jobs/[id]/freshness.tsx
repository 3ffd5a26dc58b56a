"use client";

/** Live / Paused / Not updating, and how old the data on screen is; the overview's look. */
export function Freshness({
  updatedAt,
  now,
  isPaused,
  isFailing,
}: {
  updatedAt: number;
  now: number;
  isPaused: boolean;
  isFailing: boolean;
}) {
  // The clock ticks once a second and may lag a response by up to a second: never show a negative age.
  const age = Math.max(0, Math.round((now - updatedAt) / 1000));
  return (
    <p className="flex items-center gap-2 text-sm text-neutral-500">
      <span
        aria-hidden="true"
        className={`size-2 rounded-full ${
          isPaused ? "bg-amber-400" : isFailing ? "bg-red-500" : "bg-emerald-500 motion-safe:animate-pulse"
        }`}
      />
      <span className="font-medium text-neutral-700">{isPaused ? "Paused" : isFailing ? "Not updating" : "Live"}</span>
      <span className="tabular-nums">Updated {age < 60 ? `${age} s` : `${Math.floor(age / 60)} min`} ago</span>
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
