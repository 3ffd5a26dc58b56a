import { z } from "zod";
import type { SearchParams } from "@/lib/frame/page";
import type { DeadScope } from "@/lib/jobs/dead";

/** How far back the page looks, as it travels in the URL (`?window=24h`). */
export const WINDOWS = {
  "1h": { label: "Last hour", ms: 3_600_000 },
  "24h": { label: "Last 24 hours", ms: 86_400_000 },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000 },
  all: { label: "All time", ms: null },
} as const;
type DeadWindow = keyof typeof WINDOWS;
// Object.keys cannot type its keys; WINDOWS has at least one, so the tuple z.enum needs is safe.
export const WINDOW_KEYS = Object.keys(WINDOWS) as [DeadWindow, ...DeadWindow[]];

/** The page's scope in the URL: unknown or malformed values fall back rather than failing the page. */
export const DeadScopeParams = z.object({
  tenant: z.string().trim().min(1).max(100).optional().catch(undefined),
  window: z.enum(WINDOW_KEYS).default("all").catch("all"),
});
export type DeadScopeParams = z.output<typeof DeadScopeParams>;

export function parseDeadScope(params: URLSearchParams | SearchParams): DeadScopeParams {
  const get = (k: string) => {
    const v = params instanceof URLSearchParams ? params.get(k) : params[k];
    const one = Array.isArray(v) ? v[0] : v;
    return one === null || one === "" ? undefined : one;
  };
  return DeadScopeParams.parse({ tenant: get("tenant"), window: get("window") });
}

export function scopeToSearch(s: DeadScopeParams): URLSearchParams {
  const out = new URLSearchParams();
  if (s.tenant) out.set("tenant", s.tenant);
  if (s.window !== "all") out.set("window", s.window);
  return out;
}

/** The lib's scope, with the window turned into a time on the server's clock. */
export function resolveScope(s: DeadScopeParams, now = Date.now()): DeadScope {
  const ms = WINDOWS[s.window].ms;
  return { tenant: s.tenant, since: ms === null ? undefined : new Date(now - ms) };
}
