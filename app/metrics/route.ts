import { pool } from "@/lib/db/client";
import { metricsResponse } from "@/lib/metrics/http";

// Prometheus scrapes it live: never prerendered, never cached.
export const dynamic = "force-dynamic";

/** Prometheus text format (lib/metrics): off unless JOBSCOPE_METRICS_TOKEN is set; a bearer token otherwise. */
export function GET(request: Request) {
  return metricsResponse(request, { token: process.env.JOBSCOPE_METRICS_TOKEN, db: pool });
}
