import type { JobState } from "@/lib/fsm/table";

type StateStyle = {
  /** A solid swatch: dots, bars, chart series. */
  swatch: string;
  /** A tinted pill: badges and tabs. */
  badge: string;
  /** The swatch's colour as a value, for SVG (the state diagram); a theme variable, so dark mode recolours it. */
  color: string;
};

/**
 * The one colour map for job states. Keyed by `JobState`, so adding a state to
 * the machine fails to compile until it has colours. Class names are written out
 * in full so Tailwind finds them.
 */
export const STATE_STYLES: Record<JobState, StateStyle> = {
  queued: { swatch: "bg-sky-500", badge: "bg-sky-50 text-sky-800 ring-sky-600/20", color: "var(--color-sky-500)" },
  claimed: { swatch: "bg-indigo-500", badge: "bg-indigo-50 text-indigo-800 ring-indigo-600/20", color: "var(--color-indigo-500)" },
  running: { swatch: "bg-violet-500", badge: "bg-violet-50 text-violet-800 ring-violet-600/20", color: "var(--color-violet-500)" },
  paused: { swatch: "bg-amber-400", badge: "bg-amber-50 text-amber-800 ring-amber-600/25", color: "var(--color-amber-400)" },
  cancelling: { swatch: "bg-orange-500", badge: "bg-orange-50 text-orange-800 ring-orange-600/20", color: "var(--color-orange-500)" },
  retry_wait: { swatch: "bg-yellow-500", badge: "bg-yellow-50 text-yellow-800 ring-yellow-600/25", color: "var(--color-yellow-500)" },
  succeeded: { swatch: "bg-emerald-500", badge: "bg-emerald-50 text-emerald-800 ring-emerald-600/20", color: "var(--color-emerald-500)" },
  dead: { swatch: "bg-red-500", badge: "bg-red-50 text-red-800 ring-red-600/20", color: "var(--color-red-500)" },
  cancelled: { swatch: "bg-neutral-400", badge: "bg-neutral-100 text-neutral-700 ring-neutral-500/20", color: "var(--color-neutral-400)" },
};

export function StateBadge({ state }: { state: JobState }) {
  const style = STATE_STYLES[state];
  return (
    <span className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 font-mono text-xs font-medium ring-1 ring-inset ${style.badge}`}>
      <span aria-hidden="true" className={`size-1.5 rounded-full ${style.swatch}`} />
      {state}
    </span>
  );
}
