/** What the strip at the top of a polled page says about the data on screen. */
export type FreshnessState = "live" | "behind" | "paused" | "failing";

/**
 * How old the data on screen may be before the page says its polls are falling behind (a slow
 * server, a throttled tab): two poll intervals, and at least one interval plus 3 s for a fast poll.
 */
export const behindAfterMs = (pollMs: number) => Math.max(2 * pollMs, pollMs + 3_000);

export function freshnessOf(o: { updatedAt: number | null; now: number; pollMs?: number; isPaused: boolean; isFailing: boolean }): FreshnessState {
  if (o.isPaused) return "paused";
  if (o.isFailing) return "failing";
  // Without a clock yet (before hydration) or data, nothing is known to be late.
  if (o.pollMs === undefined || o.updatedAt === null || o.now === 0) return "live";
  return o.now - o.updatedAt > behindAfterMs(o.pollMs) ? "behind" : "live";
}
