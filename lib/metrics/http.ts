import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import type { Db } from "../db/client";
import { withScope } from "../db/scope";
import { collectMetrics } from "./scrape";

/**
 * GET /metrics (app/metrics/route.ts): off (404) unless JOBSCOPE_METRICS_TOKEN is set, and then
 * only for `Authorization: Bearer <token>` (401 otherwise, with the WWW-Authenticate a Prometheus
 * `authorization` block expects). The token is compared in constant time, through its digest so
 * that lengths do not differ. The reads run in one transaction scoped to every tenant (the
 * series aggregate all of them; none carries a tenant's name or data).
 */
export async function metricsResponse(request: Request, deps: { token: string | undefined; db: () => Db }): Promise<Response> {
  const token = deps.token?.trim();
  if (!token) return new Response("Not Found\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  if (!bearerMatches(request.headers.get("authorization"), token)) {
    return new Response("a bearer token is required (JOBSCOPE_METRICS_TOKEN)\n", {
      status: 401,
      headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="jobscope-metrics"' },
    });
  }
  try {
    const { text, contentType } = await withScope(deps.db(), { all: true }, (tx) => collectMetrics(tx));
    return new Response(text, { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" } });
  } catch (e) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error("GET /metrics failed:", e);
    return new Response("the metrics could not be read; details are in the server log\n", {
      status: 500,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
}

const digest = (s: string) => createHash("sha256").update(s).digest();

export function bearerMatches(header: string | null, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!m) return false;
  return timingSafeEqual(digest(m[1]!), digest(token));
}
