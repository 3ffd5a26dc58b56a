"use client";

import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { Options } from "@/components/options";
import { TZ_KEY } from "@/lib/client/tz";
import {
  formatAgo,
  formatDateTime,
  formatDay,
  formatLong,
  formatRelative,
  formatUtc,
  isTimeZone,
  TZ_COOKIE,
  TZ_COOKIE_MAX_AGE,
} from "@/lib/time-format";

// The viewer's time zone for client components. The layout reads it from the cookie on the server
// and provides it here, so the server's render and the browser's format times the same way.

const TimeZoneContext = createContext("UTC");

/** The viewer's time zone (an IANA name; "UTC" when they have none). */
export function useTimeZone(): string {
  return useContext(TimeZoneContext);
}

function saveTimeZone(tz: string) {
  document.cookie = `${TZ_COOKIE}=${encodeURIComponent(tz)}; path=/; max-age=${TZ_COOKIE_MAX_AGE}; samesite=lax`;
}

/** Sets the viewer's zone (cookie, one year) and renders the page again with it. */
export function useSetTimeZone(): (tz: string) => void {
  const router = useRouter();
  return (tz: string) => {
    if (!isTimeZone(tz)) return;
    saveTimeZone(tz);
    router.refresh();
  };
}

/**
 * Provides the zone the server read. `chosen` is false on a first visit (no valid cookie): the
 * browser's own zone (or the one the jobs filters kept before the cookie) is saved then, and the
 * page rendered again with it.
 */
export function TimeZoneProvider({ tz, chosen, children }: { tz: string; chosen: boolean; children: ReactNode }) {
  const router = useRouter();
  useEffect(() => {
    if (chosen) return;
    const saved = window.localStorage.getItem(TZ_KEY);
    const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const pick = saved && isTimeZone(saved) ? saved : browser && isTimeZone(browser) ? browser : "UTC";
    saveTimeZone(pick);
    if (pick !== tz) router.refresh();
  }, [chosen, tz, router]);
  return <TimeZoneContext.Provider value={tz}>{children}</TimeZoneContext.Provider>;
}

/** Every zone this browser knows, with UTC and the current one first; only once mounted (ICU lists differ). */
function useZoneList(current: string): string[] {
  const [all, setAll] = useState<string[]>([]);
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (typeof Intl.supportedValuesOf === "function") setAll(Intl.supportedValuesOf("timeZone"));
  }, []);
  return [...new Set(["UTC", current, ...all])];
}

/** The time-zone choice, in the account menu (and the jobs filters): it sticks, in a cookie. */
export function TimeZoneSelect({
  id = "account-tz",
  className,
  labelClassName,
  wrapperClassName = "flex items-center justify-between gap-2 text-neutral-700",
}: {
  id?: string;
  className?: string;
  labelClassName?: string;
  wrapperClassName?: string;
}) {
  const tz = useTimeZone();
  const setTz = useSetTimeZone();
  const zones = useZoneList(tz);
  return (
    // The label holds only its words: wrapped around the select, its text took in every zone's name
    // (a page's getByLabel("Name") matched this select).
    <div className={wrapperClassName}>
      <label htmlFor={id} className={labelClassName}>
        Time zone
      </label>
      <select
        id={id}
        value={tz}
        onChange={(e) => setTz(e.currentTarget.value)}
        className={className ?? "w-40 rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm text-neutral-900"}
      >
        <Options of={zones} />
      </select>
    </div>
  );
}

/**
 * An absolute time in the viewer's zone, the UTC time on hover: "2026-12-01 14:05:03 GMT+1" (or
 * `format(at, zone)`, or the children).
 */
export function LocalTime({
  at,
  className,
  format = formatDateTime,
  children,
}: {
  at: Date;
  className?: string;
  format?: (at: Date, tz: string) => string;
  children?: ReactNode;
}) {
  const tz = useTimeZone();
  return (
    <time dateTime={at.toISOString()} title={formatUtc(at)} className={className}>
      {children ?? format(at, tz)}
    </time>
  );
}

/** The day in the viewer's zone, "2026-12-01", the UTC time on hover. */
export function LocalDay({ at, className }: { at: Date; className?: string }) {
  return <LocalTime at={at} className={className} format={formatDay} />;
}

/** The long form, "1 May 2026, 13:01:03 GMT+1", the UTC time on hover. */
export function LongTime({ at, className }: { at: Date; className?: string }) {
  return <LocalTime at={at} className={className} format={formatLong} />;
}

/** A relative time with the absolute one (viewer's zone, then UTC) as its tooltip. */
export function RelativeTime({ at, now, className }: { at: Date; now: number; className?: string }) {
  const tz = useTimeZone();
  const title = tz === "UTC" ? formatUtc(at) : `${formatDateTime(at, tz)} (${formatUtc(at)})`;
  return (
    <time dateTime={at.toISOString()} title={title} className={className}>
      {formatRelative(at.getTime(), now)}
    </time>
  );
}

/** An absolute time with the relative one beneath it: "2026-11-29 13:01:03 GMT+1 / 3 min ago". */
export function Timestamp({ at, now }: { at: Date; now: number }) {
  return (
    <span className="block">
      <LocalTime at={at} className="block tabular-nums" />
      <span className="block text-xs text-neutral-600">{formatRelative(at.getTime(), now)}</span>
    </span>
  );
}

/**
 * A list cell's time: "3 min ago" (formatAgo), the full time (viewer's zone, then UTC) as its
 * tooltip, "—" for none. Before the browser's clock is known (`now` is 0) it shows "05-01 12:01".
 */
export function TimeAgo({ at, now }: { at: Date | null; now: number }) {
  const tz = useTimeZone();
  if (!at) return <span className="text-neutral-600">—</span>;
  const absolute = formatDateTime(at, tz);
  const title = tz === "UTC" ? absolute : `${absolute} (${formatUtc(at)})`;
  return (
    <time dateTime={at.toISOString()} title={title} className="whitespace-nowrap tabular-nums">
      {now === 0 ? absolute.slice(5, 16) : formatAgo(now - at.getTime())}
    </time>
  );
}
