import type { Metadata } from "next";
import { requirePage } from "@/lib/auth/viewer";
import { ApiReference } from "./api-reference";

export const metadata: Metadata = { title: "Tenant API" };
export const dynamic = "force-dynamic";

/** The tenant API's reference, read from its OpenAPI document (GET /api/v1/openapi.json) and rendered for people. */
export default async function ApiDocsPage() {
  await requirePage("jobs:read", "/api-docs");
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Tenant API</h1>
        <p className="mt-1 max-w-3xl text-sm text-neutral-600">
          Submit, read and cancel your tenant&apos;s jobs over HTTP with an API key (
          <code className="font-mono text-xs">Authorization: Bearer jsk_…</code>). The raw document is at{" "}
          <a href="/api/v1/openapi.json" className="font-medium text-sky-700 underline underline-offset-2">
            /api/v1/openapi.json
          </a>
          .
        </p>
      </div>
      <ApiReference url="/api/v1/openapi.json" />
    </div>
  );
}
