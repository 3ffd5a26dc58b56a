import { redirect } from "next/navigation";
import { can } from "@/lib/auth/permissions";
import { requirePage } from "@/lib/auth/viewer";
import { OverviewView } from "./_overview/overview-view";

// Live data: rendered per request, never at build time.
export const dynamic = "force-dynamic";

/** The overview is cross-tenant insight; a tenant member's start page is their jobs. */
export default async function OverviewPage() {
  const viewer = await requirePage("jobs:read", "/");
  if (!can(viewer, "insight:read")) redirect("/jobs");
  return <OverviewView />;
}
