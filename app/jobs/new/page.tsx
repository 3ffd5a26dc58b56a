import type { Metadata } from "next";
import { Breadcrumb } from "@/components/breadcrumb";
import { listTenantOptions } from "@/lib/auth/tenants";
import { requirePage, withViewerRead } from "@/lib/auth/viewer";
import { JOB_TYPES, maySubmit } from "@/lib/jobs/job-types";
import { paramFieldsOf } from "@/lib/jobs/param-fields";
import { PageHeader } from "@/components/page-header";
import { SubmitJobForm, type SubmitType } from "./submit-job-form";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Submit a job" };
export const dynamic = "force-dynamic";

/** An operator submits a job for a tenant: the form is the job type's schema (lib/jobs/param-fields.ts). */
export default async function SubmitJobPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("jobs:operate", "/jobs/new");
  const tenants = await withViewerRead(viewer, (tx) => listTenantOptions(tx, { activeOnly: true }));
  const types: SubmitType[] = Object.entries(JOB_TYPES)
    .filter(([type]) => maySubmit(type, "console"))
    .map(([type, t]) => ({ type, description: t.description, queue: t.queue, maxAttempts: t.maxAttempts, fields: paramFieldsOf(type) }));
  const asked = (await searchParams).type;
  const initialType = typeof asked === "string" && types.some((t) => t.type === asked) ? asked : (types[0]?.type ?? "");
  return (
    <div className="space-y-5">
      <Breadcrumb href="/jobs" label="Jobs">
        Submit a job
      </Breadcrumb>
      <PageHeader
        title="Submit a job"
        description="For a tenant, as yourself: checked exactly as a submission through the API is, each problem shown at its field."
      />
      <SubmitJobForm tenants={tenants} types={types} initialType={initialType} />
    </div>
  );
}
