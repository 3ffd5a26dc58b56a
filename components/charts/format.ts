import { formatClock, formatDay, formatDuration, zoneLabel } from "@/lib/time-format";

/** "14:05", an ISO time on the wall clock of `tz` (the viewer's zone). */
export function hhmm(iso: string, tz: string): string {
  return formatClock(new Date(iso), tz).slice(0, 5);
}

/** "14:05 GMT+1": a chart's tooltip label. */
export const hhmmZone = (iso: string, tz: string) => `${hhmm(iso, tz)} ${zoneLabel(new Date(iso), tz)}`;

export const duration = (ms: unknown) => (typeof ms === "number" && Number.isFinite(ms) ? formatDuration(ms) : "—");
export const percent = (v: unknown) => (typeof v === "number" ? `${Math.round(v * 100)}%` : "—");

/** "12-02 14:00": a step of a chart over days, on the wall clock of `tz`. */
export const dayHhmm = (iso: string, tz: string) => `${formatDay(new Date(iso), tz).slice(5)} ${hhmm(iso, tz)}`;
/** "12-02": a day's step. */
export const day = (iso: string, tz: string) => formatDay(new Date(iso), tz).slice(5);
/** "2026-12-02 14:00 GMT+1": a chart's tooltip label over days. */
export const dayHhmmZone = (iso: string, tz: string) => `${formatDay(new Date(iso), tz)} ${hhmmZone(iso, tz)}`;
