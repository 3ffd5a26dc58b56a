import type { JobsResponse } from "@/lib/client/wire";
import { loadJobs } from "@/app/jobs/load";
import { tenantScopeOf } from "@/lib/auth/permissions";
import { confineTenant } from "@/lib/auth/viewer";
import { consoleRoute } from "@/lib/frame/route";
import { paramsProblem, parseJobFilters } from "@/lib/jobs/filters";
import { AppError } from "@/lib/result";

// Polled live by the jobs list: never prerendered, never cached.
export const dynamic = "force-dynamic";

/** One page of jobs and the per-state counts, for the same query string as /jobs. */
export const GET = consoleRoute({
  permission: "jobs:read",
  input: (request, _params, viewer) => {
    const filters = confineTenant(viewer, parseJobFilters(request.nextUrl.searchParams));
    // A params search that does not parse is the caller's mistake, named: never a list as if it were not given.
    const problem = paramsProblem(filters);
    if (problem) throw new AppError("invalid_input", `params: ${problem}`);
    return filters;
  },
  failed: "Could not list jobs: the database did not answer. Details are in the server log.",
  read: ({ tx, input, viewer }): Promise<JobsResponse> => loadJobs(tx, input, tenantScopeOf(viewer) !== null),
});
