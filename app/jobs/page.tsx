import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { actorOf, confineTenant, requirePage, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { can, tenantScopeOf } from "@/lib/auth/permissions";
import { listTenantOptions } from "@/lib/auth/tenants";
import { paramsProblem, readJobFilters, type FilterProblem, type JobFilters } from "@/lib/jobs/filters";
import { JobsView } from "./_components/jobs-view";
import { searchOf } from "./_components/url";
import type { JobsResponse } from "@/lib/client/wire";
import { firstView } from "@/lib/frame/first-view";
import { loadJobs } from "./load";
import { typesSeenBy } from "@/lib/jobs/job-types";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Jobs" };
export const dynamic = "force-dynamic";

export default async function JobsPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("jobs:read", "/jobs");
  const read = readJobFilters(await searchParams);
  const filters = confineTenant(viewer, read.filters);
  const list = <JobsWithData viewer={viewer} filters={filters} problems={read.problems} />;
  // Who may see it is decided before anything streams (a 404 keeps its status), and so is where a
  // lookup goes (the one job it finds opens with a real redirect); a list streams in.
  if (isLookup(filters)) return list;
  return <Suspense fallback={<PageLoading title="Jobs" what="the jobs" />}>{list}</Suspense>;
}

const isLookup = (f: JobFilters) => !!f.q && !f.after && !f.before;

async function JobsWithData({ viewer, filters, problems }: { viewer: Viewer; filters: JobFilters; problems: FilterProblem[] }) {
  const isStaff = viewer.role !== "tenant";
  const [{ initial, renderedAt }, tenants] = await Promise.all([
    // A params search that does not parse is named on the page (JobsView), not listed.
    paramsProblem(filters)
      ? { initial: null, renderedAt: 0 }
      : firstView<JobsResponse>(viewer, "/jobs", (tx) => loadJobs(tx, filters, tenantScopeOf(viewer) !== null)),
    // The tenant picker's choices (staff only): ids and names, so "Acme" or "acm" finds acme.
    isStaff
      ? withViewerRead(viewer, (tx) => listTenantOptions(tx)).catch((err: unknown) => {
          console.error("/jobs: could not list tenants:", err);
          return [];
        })
      : [],
  ]);
  // A lookup that found exactly one job opens it, as a pasted id or link should; a list of one would be a step more.
  const only = initial?.jobs.length === 1 && !initial.next && !initial.prev ? initial.jobs[0] : undefined;
  if (isLookup(filters) && only) redirect(`/jobs/${only.id}`);
  const bulkActor = can(viewer, "jobs:operate") ? (actorOf(viewer)?.kind ?? null) : null;
  // The job types as the server knows them (the demo's exist only where JOBSCOPE_DEMO=1, which the
  // browser's bundle cannot see): one list for the server's render and the browser's. A tenant's
  // are the types it may submit.
  const types = typesSeenBy(!isStaff);
  return (
    <JobsView
      search={searchOf(filters)}
      initial={initial}
      renderedAt={renderedAt}
      actorKind={bulkActor}
      isStaff={isStaff}
      tenants={tenants}
      types={types}
      problems={problems}
    />
  );
}
