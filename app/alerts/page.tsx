import type { Metadata } from "next";
import { listAlertDeliveries, listAlertRules } from "@/lib/alerts/rules";
import { requirePage } from "@/lib/auth/viewer";
import type { AlertsResponse } from "@/lib/client/wire";
import { firstView } from "@/lib/frame/first-view";
import { typesSeenBy } from "@/lib/jobs/job-types";
import { AlertsView } from "./alerts-view";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

/**
 * Alert rules and their delivery history, rendered first here, then polled from GET /api/alerts.
 * Operators and admins see and set every staff rule; a tenant member sees and sets only their
 * tenant's rules (row-level security and the rule's own check), which can only be about the
 * tenant's own dead jobs.
 */
export default async function AlertsPage() {
  const viewer = await requirePage("alerts:manage", "/alerts");
  const { initial, renderedAt } = await firstView<AlertsResponse>(viewer, "/alerts", async (tx) => ({
    rules: await listAlertRules(tx),
    deliveries: await listAlertDeliveries(tx),
  }));
  const isTenant = viewer.role === "tenant";
  return <AlertsView initial={initial} renderedAt={renderedAt} isTenant={isTenant} types={typesSeenBy(isTenant)} />;
}
