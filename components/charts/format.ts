import { formatDuration } from "@/lib/jobs/timeline";

/** "14:05" in UTC, like every time the console shows. */
export function hhmm(iso: string): string {
  return iso.slice(11, 16);
}

export const duration = (ms: unknown) => (typeof ms === "number" && Number.isFinite(ms) ? formatDuration(ms) : "—");
export const percent = (v: unknown) => (typeof v === "number" ? `${Math.round(v * 100)}%` : "—");

/** The outcome colours of the job page's timeline chart (components/timeline-chart.tsx). */
export const OUTCOME_COLORS = {
  succeeded: "#059669",
  failed: "#dc2626",
  leaseExpired: "#ea580c",
  other: "#64748b",
} as const;
