import type { Metadata } from "next";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { requirePage, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { can } from "@/lib/auth/permissions";
import { DEAD_GROUP_SCAN_CAP, listDeadGroups } from "@/lib/jobs/dead";
import { DeadJobsView } from "./dead-jobs-view";
import type { DeadGroupsResponse } from "@/lib/client/wire";
import { toGroupDto } from "./groups";
import { parseDeadScope, resolveScope, type DeadScopeParams } from "./scope";

export const metadata: Metadata = { title: "Dead jobs" };
// Live data: rendered per request, never at build time.
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The first view is rendered here; the browser then polls GET /api/dead. */
export default async function DeadJobsPage({ searchParams }: Props) {
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
  let initial: DeadGroupsResponse | null = null;
  try {
    const { groups, capped } = await withViewerRead(viewer, (tx) => listDeadGroups(tx, resolveScope(scope)));
    initial = { groups: groups.map(toGroupDto), capped, scanCap: DEAD_GROUP_SCAN_CAP, at: new Date().toISOString() };
  } catch (err) {
    // The page still renders: the browser's first poll shows the error state and retries.
    console.error("/dead: could not list dead jobs:", err);
  }
  return <DeadJobsView scope={scope} initial={initial} canReplay={can(viewer, "jobs:operate")} />;
}
