/**
 * The recent windows insight queries read. Every chart and table reads a
 * bounded window through an index on a timestamp, never the whole history.
 */
export const WINDOWS = {
  "1h": { ms: 3_600_000, stepMs: 60_000, label: "last hour" },
  "6h": { ms: 6 * 3_600_000, stepMs: 5 * 60_000, label: "last 6 hours" },
  "24h": { ms: 24 * 3_600_000, stepMs: 15 * 60_000, label: "last 24 hours" },
} as const;
export type WindowKey = keyof typeof WINDOWS;
export const WINDOW_KEYS = Object.keys(WINDOWS) as WindowKey[];

export function parseWindow(v: string | null | undefined, fallback: WindowKey = "24h"): WindowKey {
  return v && v in WINDOWS ? (v as WindowKey) : fallback;
}

/** The latency charts read the newest this-many attempts of the window (lib/insight/queries.ts latencyByType). */
export const LATENCY_SAMPLE = 2_000;

/**
 * A job blamed for this many worker crashes is a poison suspect: it kills its workers — the repeat
 * offender of lib/jobs/poison.ts, which says how one job is blamed for a worker's death.
 */
export { REPEAT_CRASHES as POISON_SUSPECT_CRASHES } from "../jobs/poison";
/** How far back the overview looks for poison suspects. */
export const POISON_LOOKBACK_MS = 7 * 24 * 3_600_000;
/** A worker that has not touched its row for this long, and did not say it stopped, is silent. */
export const SILENT_AFTER_MS = 30_000;
