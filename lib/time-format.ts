/**
 * Absolute times in the viewer's time zone, written the same way on the server and in the browser.
 *
 * The zone is the viewer's choice, kept in a cookie (TZ_COOKIE) that the server reads before its
 * first render (lib/server/time-zone.ts) and hands to the browser (components/time-zone.tsx): both
 * renders format with the same zone, so they agree (no hydration mismatch). A missing or invalid
 * cookie means UTC. The zone's label is its offset ("GMT+1", "GMT-5:30"), computed here rather than
 * taken from Intl's localized abbreviations, which may differ between the server's ICU and the browser's.
 *
 * Text that is stored or audited (audit reasons, API JSON) stays UTC/ISO: formatUtc, toISOString.
 * No "use client" and no hooks: server components and server actions use these too.
 *
 * Spans and ages are written here too, one way each: a span (how long something took or has been
 * going on) by formatDuration, "3m 12s"; an age (how long ago) by formatAgo, "3 min ago", and a
 * time to come by formatRelative, "in 40 s". Every page that shows one calls these.
 */

/** The cookie that keeps the viewer's time zone (an IANA name), one year. */
export const TZ_COOKIE = "jobscope-tz";
export const TZ_COOKIE_MAX_AGE = 60 * 60 * 24 * 365;

const formats = new Map<string, Intl.DateTimeFormat>();

/** A cached formatter for `tz`'s wall clock; throws RangeError for an unknown zone. */
function wallFormat(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(tz, f);
  }
  return f;
}

export function isTimeZone(tz: string): boolean {
  if (!tz || tz.length > 100) return false;
  try {
    wallFormat(tz);
    return true;
  } catch {
    return false;
  }
}

/** The zone a cookie names, or undefined when it is missing, malformed or not a zone this runtime knows. */
export function cookieTimeZone(v: string | undefined | null): string | undefined {
  let tz = "";
  try {
    tz = v ? decodeURIComponent(v).trim() : "";
  } catch {
    return undefined;
  }
  return isTimeZone(tz) ? tz : undefined;
}

/** The zone a cookie names, or UTC when it is missing or invalid. */
export const parseTimeZone = (v: string | undefined | null): string => cookieTimeZone(v) ?? "UTC";

/** The offset of `tz` from UTC at instant `ms`, in ms (positive east of Greenwich). */
export function offsetMs(ms: number, tz: string): number {
  if (tz === "UTC") return 0;
  const parts = Object.fromEntries(
    wallFormat(tz)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return wall - Math.floor(ms / 1000) * 1000;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** The wall clock of `tz` at `at`, as a Date whose UTC fields read it. */
const wall = (at: Date, tz: string) => new Date(at.getTime() + offsetMs(at.getTime(), tz));

/** "UTC", or the offset at `at`: "GMT+1", "GMT-5", "GMT+5:30". */
export function zoneLabel(at: Date, tz: string): string {
  const off = Math.round(offsetMs(at.getTime(), tz) / 60_000);
  if (tz === "UTC") return "UTC";
  const abs = Math.abs(off);
  return `GMT${off < 0 ? "-" : "+"}${Math.floor(abs / 60)}${abs % 60 ? `:${pad(abs % 60)}` : ""}`;
}

/** 14:05:03, the wall clock of `tz` (no zone label). */
export function formatClock(at: Date, tz: string): string {
  const w = wall(at, tz);
  return `${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}`;
}

/** 2026-12-01, the date in `tz`. */
export function formatDay(at: Date, tz: string): string {
  return wall(at, tz).toISOString().slice(0, 10);
}

/** 2026-12-01 14:05:03 GMT+1 (or "… UTC"). */
export function formatDateTime(at: Date, tz: string): string {
  return `${formatDay(at, tz)} ${formatClock(at, tz)} ${zoneLabel(at, tz)}`;
}

/** 2026-11-29 12:01:03 UTC: the hover text beside a zoned time, and text that is stored. */
export function formatUtc(at: Date): string {
  return formatDateTime(at, "UTC");
}

/** "at 12:01:03 GMT+1" when `at` is on the same day as `now` in `tz`, else "on 2026-11-28 at 12:01:03 GMT+1". */
export function formatMoment(at: Date, now: number, tz: string): string {
  const day = formatDay(at, tz);
  const time = `at ${formatClock(at, tz)} ${zoneLabel(at, tz)}`;
  return formatDay(new Date(now), tz) === day ? time : `on ${day} ${time}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** 1 May 2026, 12:01:03 GMT+1: the long form the dead-jobs page shows under its relative times. */
export function formatLong(at: Date, tz: string): string {
  const w = wall(at, tz);
  return `${w.getUTCDate()} ${MONTHS[w.getUTCMonth()]} ${w.getUTCFullYear()}, ${formatClock(at, tz)} ${zoneLabel(at, tz)}`;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A compact duration for labels and tables: 350ms, 4.2s, 42s, 3m 12s, 6m, 4h 05m, 2d 3h. */
export function formatDuration(ms: number): string {
  const v = Math.max(0, ms);
  if (v < SECOND) return `${Math.round(v)}ms`;
  if (v < 10 * SECOND) return `${(Math.floor(v / 100) / 10).toFixed(1)}s`;
  if (v < MINUTE) return `${Math.floor(v / SECOND)}s`;
  if (v < HOUR) return pair(Math.floor(v / MINUTE), "m", Math.floor((v % MINUTE) / SECOND), "s");
  if (v < DAY) return pair(Math.floor(v / HOUR), "h", Math.floor((v % HOUR) / MINUTE), "m");
  return pair(Math.floor(v / DAY), "d", Math.floor((v % DAY) / HOUR), "h", false);
}

/** "4h 05m", or just "4h" when the smaller unit is zero. */
function pair(big: number, bigUnit: string, small: number, smallUnit: string, pad = true) {
  if (small === 0) return `${big}${bigUnit}`;
  return `${big}${bigUnit} ${pad ? String(small).padStart(2, "0") : small}${smallUnit}`;
}

/** An age in words: "12 s", "3 min", "30 h" (hours up to two days), "3 d". */
function ageWords(ms: number): string {
  const s = Math.round(Math.abs(ms) / SECOND);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h`;
  return `${Math.floor(h / 24)} d`;
}

/**
 * How long ago, `ms` being the age: "0 s ago", "3 min ago", "30 h ago", "3 d ago". A time ahead of the
 * clock that reads it (the server's and the browser's clocks apart) is "0 s ago".
 */
export const formatAgo = (ms: number): string => `${ageWords(Math.max(0, ms))} ago`;

/** `at` seen from `now`: formatAgo for the past, "in 40 s" for a time to come (a schedule's next run). */
export function formatRelative(at: number, now: number): string {
  return at - now >= SECOND / 2 ? `in ${ageWords(at - now)}` : formatAgo(now - at);
}
