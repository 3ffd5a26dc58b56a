// Times in the console, written the same way on the server and in the browser.
//
// Absolute times are shown in UTC: the server renders the first view, and a
// time zone that differed between the server and the browser would make the
// two renders disagree. Relative times ("3 min ago") take `now` as an argument;
// a client component gets a ticking one from `useNow` (components/use-now.ts),
// which answers the server's render time (or 0, "not known yet") during hydration.
//
// No "use client" and no hooks here on purpose: server components and server
// actions use these formatters too.

const pad = (n: number) => String(n).padStart(2, "0");

/** 12:01:03 (UTC). */
export function formatUtcTime(at: Date): string {
  return `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`;
}

/** 2026-11-29 12:01:03 UTC. */
export function formatUtc(at: Date): string {
  return `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${formatUtcTime(at)} UTC`;
}

/** "at 12:01:03 UTC" when `at` is on the same UTC day as `now`, else "on 2026-11-28 at 12:01:03 UTC". */
export function formatUtcMoment(at: Date, now: number): string {
  const sameDay = new Date(now).toISOString().slice(0, 10) === at.toISOString().slice(0, 10);
  return sameDay ? `at ${formatUtcTime(at)} UTC` : `on ${at.toISOString().slice(0, 10)} at ${formatUtcTime(at)} UTC`;
}

const utcLong = new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC",
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

/** 1 May 2026, 12:01:03 UTC: the long form the dead-jobs page shows under its relative times. */
export function formatUtcLong(at: Date): string {
  return `${utcLong.format(at)} UTC`;
}

/**
 * "just now", "12 s ago", "3 min ago", "5 h ago", "2 d ago"; "in 40 s" for the future.
 * The job page's wording (event log, heartbeat); lists use formatAgo.
 */
export function formatRelative(at: number, now: number): string {
  const diff = at - now;
  const s = Math.round(Math.abs(diff) / 1000);
  if (s < 2) return "just now";
  const amount =
    s < 60 ? `${s} s` : s < 3_600 ? `${Math.floor(s / 60)} min` : s < 86_400 ? `${Math.floor(s / 3_600)} h` : `${Math.floor(s / 86_400)} d`;
  return diff > 0 ? `in ${amount}` : `${amount} ago`;
}

/**
 * How long ago, for lists of things that happened: "0 s ago", "3 min ago", "30 h ago" (hours
 * up to two days), "3 d ago"; a time ahead of `now` (clocks apart) counts as "0 s ago".
 */
export function formatAgo(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** A relative time with the absolute one as its tooltip and machine-readable value. */
export function RelativeTime({ at, now, className }: { at: Date; now: number; className?: string }) {
  return (
    <time dateTime={at.toISOString()} title={formatUtc(at)} className={className}>
      {formatRelative(at.getTime(), now)}
    </time>
  );
}

/** An absolute UTC time with the relative one beneath it: "2026-11-29 12:01:03 UTC / 3 min ago". */
export function Timestamp({ at, now }: { at: Date; now: number }) {
  return (
    <span className="block">
      <time dateTime={at.toISOString()} className="block tabular-nums">
        {formatUtc(at)}
      </time>
      <span className="block text-xs text-neutral-600">{formatRelative(at.getTime(), now)}</span>
    </span>
  );
}

/**
 * A list cell's time: "3 min ago" (formatAgo), the full UTC time as its tooltip, "—" for none.
 * Before the browser's clock is known (`now` is 0) it shows "05-01 12:01" instead.
 */
export function TimeAgo({ at, now }: { at: Date | null; now: number }) {
  if (!at) return <span className="text-neutral-600">—</span>;
  const absolute = formatUtc(at);
  return (
    <time dateTime={at.toISOString()} title={absolute} className="whitespace-nowrap tabular-nums">
      {now === 0 ? absolute.slice(5, 16) : formatAgo(now - at.getTime())}
    </time>
  );
}
