// Times in the console, written the same way on the server and in the browser.
//
// Absolute times are shown in UTC: the server renders the first view, and a
// time zone that differed between the server and the browser would make the
// two renders disagree. Relative times ("3 min ago") take `now` as an argument;
// a client component gets a ticking one from `useNow` (app/jobs/[id]/use-now.ts),
// which answers the server's render time during hydration.
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

/** "just now", "12 s ago", "3 min ago", "5 h ago", "2 d ago"; "in 40 s" for the future. */
export function formatRelative(at: number, now: number): string {
  const diff = at - now;
  const s = Math.round(Math.abs(diff) / 1000);
  if (s < 2) return "just now";
  const amount = s < 60 ? `${s} s` : s < 3_600 ? `${Math.floor(s / 60)} min` : s < 86_400 ? `${Math.floor(s / 3_600)} h` : `${Math.floor(s / 86_400)} d`;
  return diff > 0 ? `in ${amount}` : `${amount} ago`;
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
      <span className="block text-xs text-neutral-500">{formatRelative(at.getTime(), now)}</span>
    </span>
  );
}
