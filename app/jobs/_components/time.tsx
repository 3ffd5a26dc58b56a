"use client";

import { useNow } from "./clock";

/** "2026-05-01 12:01:03 UTC": the same on the server and in every browser. */
export function formatUtc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function formatAgo(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** A time as "3 min ago", with the absolute UTC time in its title. */
export function RelativeTime({ iso }: { iso: string | null }) {
  // Minutes and hours need no per-second tick: a relative time here may lag by up to ten seconds.
  const now = useNow(10_000);
  if (!iso) return <span className="text-neutral-400">—</span>;
  const absolute = formatUtc(iso);
  return (
    <time dateTime={iso} title={absolute} className="whitespace-nowrap tabular-nums">
      {now === 0 ? absolute.slice(5, 16) : formatAgo(now - Date.parse(iso))}
    </time>
  );
}
