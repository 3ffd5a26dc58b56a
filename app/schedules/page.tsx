import type { Metadata } from "next";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { can } from "@/lib/auth/permissions";
import { listTenantOptions } from "@/lib/auth/tenants";
import { requirePage, type Viewer, withViewerRead } from "@/lib/auth/viewer";
import { firstView } from "@/lib/frame/first-view";
import type { SchedulesResponse } from "@/lib/client/wire";
import { JOB_TYPES, maySubmit } from "@/lib/jobs/job-types";
import { listSchedules } from "@/lib/schedules/list";
import { paramFieldsOf } from "@/lib/jobs/param-fields";
import { SchedulesView } from "./schedules-view";

export const metadata: Metadata = { title: "Schedules" };
export const dynamic = "force-dynamic";

/** Staff see every schedule; operators also create, edit, delete, run, pause and resume them. The browser then polls GET /api/schedules. */
export default async function SchedulesPage() {
  const viewer = await requirePage("insight:read", "/schedules");
  // Who may see it is decided before anything streams (a 404 keeps its status); the schedules stream in.
  return (
    <Suspense fallback={<PageLoading title="Schedules" what="the schedules" />}>
      <SchedulesWithData viewer={viewer} />
    </Suspense>
  );
}

async function SchedulesWithData({ viewer }: { viewer: Viewer }) {
  const canOperate = can(viewer, "jobs:operate");
  const [{ initial, renderedAt }, tenants] = await Promise.all([
    firstView<SchedulesResponse>(viewer, "/schedules", async (tx) => ({ schedules: await listSchedules(tx) })),
    canOperate ? listTenants(viewer) : [],
  ]);
  const types = Object.entries(JOB_TYPES)
    .filter(([type]) => maySubmit(type, "console"))
    .map(([type, t]) => ({ type, description: t.description, queue: t.queue, fields: paramFieldsOf(type) }));
  return <SchedulesView initial={initial} renderedAt={renderedAt} canOperate={canOperate} tenants={tenants} types={types} />;
}

/** The tenants a new schedule may submit for; none when the read failed (the form then says so). */
async function listTenants(viewer: Viewer): Promise<{ id: string; name: string }[]> {
  try {
    return await withViewerRead(viewer, (tx) => listTenantOptions(tx));
  } catch (err) {
    console.error("/schedules: could not list tenants:", err);
    return [];
  }
}
