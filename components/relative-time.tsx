// Relative times ("3 min ago"), written the same way on the server and in the browser.
//
// They take `now` as an argument; a client component gets a ticking one from `useNow`
// (components/use-now.ts), which answers the server's render time (or 0, "not known yet") during
// hydration. Absolute times are in lib/time-format.ts (in the viewer's zone); the components
// that show them (RelativeTime, Timestamp, TimeAgo, LocalTime) are in components/time-zone.tsx.
//
// No "use client" and no hooks here on purpose: server components and server actions use these too.

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
