import "server-only";
import { cookies } from "next/headers";
import { cookieTimeZone, TZ_COOKIE } from "@/lib/time-format";

/** The viewer's time zone from their cookie (UTC when missing or invalid), and whether the cookie named one. */
export async function readViewerTimeZone(): Promise<{ tz: string; chosen: boolean }> {
  const tz = cookieTimeZone((await cookies()).get(TZ_COOKIE)?.value);
  return { tz: tz ?? "UTC", chosen: tz !== undefined };
}

/** The viewer's time zone, for a server component or action that formats a time for them. */
export async function viewerTimeZone(): Promise<string> {
  return (await readViewerTimeZone()).tz;
}
