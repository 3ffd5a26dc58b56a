import type { IncomingMessage } from "node:http";

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.split(",")[0]?.trim() || undefined;

/**
 * A POST to a page (a server action, fetched or a plain form) whose Origin is not this site.
 * The site is the Host header, or X-Forwarded-Host when a trusted proxy sent it (anyone else's
 * was removed by `sanitizeForwarding` before this runs). A request without an Origin passes, as
 * Next.js lets it (browsers send one with every cross-site POST). JSON endpoints under /api are
 * not pages: better-auth checks its own origins and the tenant API takes no cookies.
 */
export function isCrossOriginPagePost(req: IncomingMessage): boolean {
  if (req.method !== "POST" || (req.url ?? "/").startsWith("/api/")) return false;
  const origin = first(req.headers.origin);
  if (origin === undefined) return false;
  const site = first(req.headers["x-forwarded-host"]) ?? first(req.headers.host);
  try {
    return new URL(origin).host !== site;
  } catch {
    return true; // "null" (a sandboxed frame, a redirect across sites) or garbage
  }
}
