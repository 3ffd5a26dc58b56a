// Times are shown in UTC, so the server's first render and the browser's agree,
// and relative to the response's own clock (`at`), not the browser's.

const absolute = new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC",
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

export const numbers = new Intl.NumberFormat("en-US");

export function formatAbsolute(iso: string): string {
  return `${absolute.format(new Date(iso))} UTC`;
}

export function formatRelative(iso: string, nowIso: string): string {
  const s = Math.max(0, Math.round((Date.parse(nowIso) - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${numbers.format(n)} ${n === 1 ? one : many}`;
}

/** The "(no error)" group's name: a null error class. */
export const NO_ERROR = "(no error)";
