import type { Metadata } from "next";
import { listAlertDeliveries, listAlertRules } from "@/lib/alerts/rules";
import { requirePage, withViewerRead } from "@/lib/auth/viewer";
import { typesSeenBy } from "@/lib/jobs/job-types";
import { AlertsView, type AlertsData } from "./alerts-view";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

/**
 * Alert rules and their delivery history. Operators and admins see and set every staff
 * rule; a tenant member sees and sets only their tenant's rules (row-level security and the rule's
 * own check), which can only be about the tenant's own dead jobs.
 */
export default async function AlertsPage() {
  const viewer = await requirePage("alerts:manage", "/alerts");
  let data: AlertsData | null = null;
  try {
    data = await withViewerRead(viewer, async (tx) => {
      const [rules, deliveries] = [await listAlertRules(tx), await listAlertDeliveries(tx)];
      // Through JSON: dates as strings, the shape a client component receives.
      return JSON.parse(JSON.stringify({ rules, deliveries })) as AlertsData;
    });
  } catch (err) {
    console.error("/alerts: could not read the alert rules:", err);
  }
  return <AlertsView data={data} isTenant={viewer.role === "tenant"} types={typesSeenBy(viewer.role === "tenant")} />;
}
