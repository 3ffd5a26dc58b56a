import type { Metadata } from "next";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { can } from "@/lib/auth/permissions";
import { requirePage, type Viewer, withViewerRead } from "@/lib/auth/viewer";
import type { SchedulesResponse } from "@/lib/client/wire";
import { JOB_TYPES, maySubmit } from "@/lib/jobs/job-types";
import { listSchedules } from "@/lib/schedules/list";
import { paramFieldsOf } from "@/lib/jobs/param-fields";
import { SchedulesView } from "./schedules-view";
import { sql } from "drizzle-orm";
import { execute } from "../../lib/db/drizzle";

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
  const { initial, tenants, readAt } = await load(viewer, canOperate);
  const types = Object.entries(JOB_TYPES)
    .filter(([type]) => maySubmit(type, "console"))
    .map(([type, t]) => ({ type, description: t.description, queue: t.queue, fields: paramFieldsOf(type) }));
  return <SchedulesView initial={initial} renderedAt={readAt} canOperate={canOperate} tenants={tenants} types={types} />;
}

async function load(viewer: Viewer, canOperate: boolean) {
  const readAt = Date.now();
  try {
    return await withViewerRead(viewer, async (tx) => {
      const schedules = await listSchedules(tx);
      const tenants = canOperate ? await execute<{ id: string; name: string }>(tx, sql`SELECT id, name FROM tenants ORDER BY id LIMIT 1000`) : [];
      // Through JSON, so the first view has exactly the shape every poll has.
      const initial = JSON.parse(JSON.stringify({ schedules, at: new Date().toISOString() })) as SchedulesResponse;
      return { initial, tenants: [...tenants], readAt };
    });
  } catch (err) {
    console.error("/schedules: could not list schedules:", err);
    return { initial: null, tenants: [], readAt };
  }
}
