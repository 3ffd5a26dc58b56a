import type { Db } from "@/lib/db/client";
import type { JobFilters } from "@/lib/jobs/filters";
import { operationOutcome } from "@/lib/jobs/operation";
import { liveProgress } from "@/lib/jobs/queries";
import { countByState, listJobs } from "@/lib/jobs/queries";
import { redactListRowForTenant } from "@/lib/jobs/redact";
import type { JobsResponse } from "@/lib/client/wire";

/**
 * One page of the list and the tab counts under the same filters: the page's first render and every
 * poll. `forTenant`: the reader is a tenant member, who reads the rows redacted (lib/jobs/redact.ts).
 */
export async function loadJobs(db: Db, filters: JobFilters, forTenant: boolean): Promise<JobsResponse> {
  // The tabs count every state under the other filters; the cursor and sort do not narrow a count.
  const countFilters = { ...filters, state: undefined, after: undefined, before: undefined };
  const [page, counts, operation] = await Promise.all([
    listJobs(db, filters),
    countByState(db, countFilters),
    // The jobs a bulk operation touched: where they are now, polled with the list.
    filters.operation ? operationOutcome(db, filters.operation, { tenant: filters.tenant }) : null,
  ]);
  const rows = forTenant ? page.jobs.map(redactListRowForTenant) : page.jobs;
  // The running jobs' progress bars: after the page, from its own live rows.
  const progress = await liveProgress(db, page.jobs);
  return {
    jobs: rows.map((j) => ({
      id: j.id,
      tenantId: j.tenantId,
      type: j.type,
      queue: j.queue,
      state: j.state,
      attempt: j.attempt,
      maxAttempts: j.maxAttempts,
      stateVersion: j.stateVersion,
      lastErrorClass: j.lastErrorClass,
      lastWorker: j.lastWorker,
      crashes: j.crashes,
      createdAt: j.createdAt.toISOString(),
      finishedAt: j.finishedAt?.toISOString() ?? null,
      progress: progress.get(j.id) ?? null,
    })),
    next: page.next,
    prev: page.prev,
    ranked: page.ranked ?? null,
    counts,
    operation: operation && {
      ...operation,
      operation: operation.operation && {
        ...operation.operation,
        createdAt: operation.operation.createdAt.toISOString(),
        finishedAt: operation.operation.finishedAt?.toISOString() ?? null,
      },
    },
    at: new Date().toISOString(),
  };
}
