import { numbers } from "./numbers";

/** "40%", or "40% · 4,000 of 10,000" when the handler counts something other than percent. */
export function progressText(done: number, total: number): string {
  const pct = `${Math.min(100, Math.floor((done / total) * 100))}%`;
  return total === 100 ? pct : `${pct} · ${numbers.format(done)} of ${numbers.format(total)}`;
}

/**
 * A running handler's reported progress (`ctx.progress(done, total)`): a bar and its figure. `compact`
 * is the jobs list's (a short bar and the percentage; the counts in its title).
 */
export function JobProgress({ done, total, compact = false }: { done: number; total: number; compact?: boolean }) {
  const text = progressText(done, total);
  const pct = Math.min(100, (done / total) * 100);
  return (
    <span className={`inline-flex items-center gap-2 ${compact ? "" : "w-full max-w-md"}`} title={compact ? text : undefined}>
      <span
        role="progressbar"
        aria-label="Progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={text}
        className={`block h-1.5 overflow-hidden rounded-full bg-neutral-200 ${compact ? "w-12" : "flex-1"}`}
      >
        <span className="block h-full rounded-full bg-sky-600" style={{ width: `${pct}%` }} />
      </span>
      <span className="text-xs whitespace-nowrap text-neutral-700 tabular-nums">{compact ? text.split(" · ")[0] : text}</span>
    </span>
  );
}
