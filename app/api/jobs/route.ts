import { NextResponse, type NextRequest } from "next/server";
import type { ApiErrorBody, JobsResponse } from "@/lib/client/wire";
import { loadJobs } from "@/app/jobs/load";
import { authorize, confineTenant, denied, withViewerRead } from "@/lib/auth/viewer";
import { paramsProblem, parseJobFilters } from "@/lib/jobs/filters";
import { NO_STORE } from "@/lib/api/http";

// Polled live by the jobs list: never prerendered, never cached.
export const dynamic = "force-dynamic";

/** One page of jobs and the per-state counts, for the same query string as /jobs. */
export async function GET(request: NextRequest) {
  const auth = await authorize("jobs:read");
  if (!auth.ok) return denied(auth);
  const { viewer } = auth;
  const filters = confineTenant(viewer, parseJobFilters(request.nextUrl.searchParams));
  // A params search that does not parse is the caller's mistake, named: never a list as if it were not given.
  const problem = paramsProblem(filters);
  if (problem) {
    const body: ApiErrorBody = { error: { code: "invalid_input", message: `params: ${problem}` } };
    return NextResponse.json(body, { status: 400, headers: NO_STORE });
  }
  try {
    const body: JobsResponse = await withViewerRead(viewer, (tx) => loadJobs(tx, filters));
    return NextResponse.json(body, { headers: NO_STORE });
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error("GET /api/jobs failed:", err);
    const body: ApiErrorBody = {
      error: { code: "internal", message: "Could not list jobs: the database did not answer. Details are in the server log." },
    };
    return NextResponse.json(body, { status: 500, headers: NO_STORE });
  }
}
