import { Suspense } from "react";
import { redirect } from "next/navigation";
import { can } from "@/lib/auth/permissions";
import { requirePage, type Viewer } from "@/lib/auth/viewer";
import type { CountsResponse, OverviewResponse } from "@/lib/client/wire";
import { firstView } from "@/lib/frame/first-view";
import { OverviewLoading, OverviewView } from "./_overview/overview-view";
import { readCounts, readOverview } from "./_overview/read";
import { FIRST_WINDOW } from "./_overview/window";

// Live data: rendered per request, never at build time.
export const dynamic = "force-dynamic";

/**
 * The overview is cross-tenant insight; a tenant member's start page is their jobs. Who may see it is
 * decided before anything streams (a redirect or a 404 keeps its status); the counts and the first
 * window's charts are then read on the server, so they paint with the page, with a skeleton meanwhile.
 */
export default async function OverviewPage() {
  const viewer = await requirePage("jobs:read", "/");
  if (!can(viewer, "insight:read")) redirect("/jobs");
  return (
    <Suspense fallback={<OverviewLoading />}>
      <OverviewWithData viewer={viewer} />
    </Suspense>
  );
}

async function OverviewWithData({ viewer }: { viewer: Viewer }) {
  // The counts and the first window's charts: a failed read still renders the page, and its polls then say what failed.
  const { initial, renderedAt } = await firstView<{ counts: CountsResponse; overview: OverviewResponse; at: string }>(viewer, "/", async (tx) => ({
    counts: await readCounts(tx, viewer),
    overview: await readOverview(tx, FIRST_WINDOW),
  }));
  return <OverviewView initial={initial} renderedAt={renderedAt} />;
}
