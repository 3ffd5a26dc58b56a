import { listAlertDeliveries, listAlertRules } from "@/lib/alerts/rules";
import type { AlertsResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";

export const dynamic = "force-dynamic";

/** The alert rules and the delivery history (the alerts page polls it): a tenant member's only, by row-level security. */
export const GET = consoleRoute({
  permission: "alerts:manage",
  failed: "Could not read the alert rules: the database did not answer. Details are in the server log.",
  read: async ({ tx }) =>
    JSON.parse(
      JSON.stringify({ rules: await listAlertRules(tx), deliveries: await listAlertDeliveries(tx), at: new Date().toISOString() }),
    ) as AlertsResponse,
});
