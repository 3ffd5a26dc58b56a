import type { Metadata } from "next";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { requirePage, type Viewer } from "@/lib/auth/viewer";
import { firstView } from "@/lib/frame/first-view";
import { can } from "@/lib/auth/permissions";
import { DEAD_GROUP_SCAN_CAP, listDeadGroups } from "@/lib/jobs/dead";
import { DeadJobsView } from "./dead-jobs-view";
import type { DeadGroupsResponse } from "@/lib/client/wire";
import { toGroupDto } from "./groups";
import { parseDeadScope, resolveScope, type DeadScopeParams } from "./scope";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Dead jobs" };
// Live data: rendered per request, never at build time.
export const dynamic = "force-dynamic";

/** The first view is rendered here; the browser then polls GET /api/dead. */
export default async function DeadJobsPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("insight:read", "/dead");
  const scope = parseDeadScope(await searchParams);
  // Who may see it is decided before anything streams (a 404 keeps its status); the groups stream in.
  return (
    <Suspense fallback={<PageLoading title="Dead jobs" what="the dead jobs" />}>
      <DeadJobsWithData viewer={viewer} scope={scope} />
    </Suspense>
  );
}

async function DeadJobsWithData({ viewer, scope }: { viewer: Viewer; scope: DeadScopeParams }) {
  const { initial, renderedAt } = await firstView<DeadGroupsResponse>(viewer, "/dead", async (tx) => {
    const { groups, capped } = await listDeadGroups(tx, resolveScope(scope));
    return { groups: groups.map(toGroupDto), capped, scanCap: DEAD_GROUP_SCAN_CAP };
  });
  return <DeadJobsView scope={scope} initial={initial} renderedAt={renderedAt} canReplay={can(viewer, "jobs:operate")} />;
}
