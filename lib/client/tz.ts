/**
 * Wall times in a viewer's chosen time zone (IANA name), for the jobs list's date filters and
 * presets. The URL keeps UTC instants, so a shared link means the same moments to everyone.
 */

import { isTimeZone, offsetMs } from "@/lib/time-format";

export { isTimeZone, offsetMs };

/** The instant when the wall clock of `tz` reads y-m-d h:mi (m is 1-based). */
export function wallToUtc(y: number, m: number, d: number, h: number, mi: number, tz: string): Date {
  const guess = Date.UTC(y, m - 1, d, h, mi);
  let at = guess - offsetMs(guess, tz);
  // Across a DST change the offset at the answer can differ from the guess's: once more settles it.
  at = guess - offsetMs(at, tz);
  return new Date(at);
}

/** "2026-12-01T08:30" for an <input type="datetime-local">, in `tz`. */
export function toWallInput(at: Date, tz: string): string {
  const w = new Date(at.getTime() + offsetMs(at.getTime(), tz));
  return w.toISOString().slice(0, 16);
}

/** An <input type="datetime-local"> value read in `tz`; undefined when empty or malformed. */
export function fromWallInput(v: string, tz: string): Date | undefined {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/.exec(v);
  if (!m) return undefined;
  const d = wallToUtc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, tz);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export const PRESETS = ["last-hour", "today", "yesterday", "last-7-days"] as const;
export type Preset = (typeof PRESETS)[number];
export const PRESET_LABELS: Record<Preset, string> = {
  "last-hour": "Last hour",
  today: "Today",
  yesterday: "Yesterday",
  "last-7-days": "Last 7 days",
};

/** A preset's [from, to) in `tz` at instant `now`: "yesterday" is the viewer's yesterday, not UTC's. */
export function presetRange(p: Preset, now: number, tz: string): { from: Date; to: Date | undefined } {
  if (p === "last-hour") return { from: new Date(now - 3_600_000), to: undefined };
  const wall = new Date(now + offsetMs(now, tz));
  const midnight = (daysAgo: number) => wallToUtc(wall.getUTCFullYear(), wall.getUTCMonth() + 1, wall.getUTCDate() - daysAgo, 0, 0, tz);
  if (p === "today") return { from: midnight(0), to: undefined };
  if (p === "yesterday") return { from: midnight(1), to: midnight(0) };
  return { from: midnight(6), to: undefined };
}

/** Where the jobs filters kept the viewer's zone before the cookie (lib/time-format.ts TZ_COOKIE): read once, to carry it over. */
export const TZ_KEY = "jobscope.timeZone";
