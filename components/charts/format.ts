import { formatDuration } from "@/lib/jobs/timeline";

/** "14:05" in UTC, like every time the console shows. */
export function hhmm(iso: string): string {
  return iso.slice(11, 16);
}

export const duration = (ms: unknown) => (typeof ms === "number" && Number.isFinite(ms) ? formatDuration(ms) : "—");
export const percent = (v: unknown) => (typeof v === "number" ? `${Math.round(v * 100)}%` : "—");
