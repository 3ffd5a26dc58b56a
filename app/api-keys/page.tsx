import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { canManageApiKeys, listApiKeys, managedTenant } from "@/lib/api/keys";
import { listTenants } from "@/lib/auth/tenants";
import { requirePage } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { ApiKeysView } from "./api-keys-view";
import type { KeyView } from "./wire";

export const metadata: Metadata = { title: "API keys" };
export const dynamic = "force-dynamic";

/** Admins manage every tenant's keys; a tenant owner their own tenant's. Anyone else: 404. */
export default async function ApiKeysPage() {
  const viewer = await requirePage("jobs:read", "/api-keys");
  if (!canManageApiKeys(viewer)) notFound();
  const own = managedTenant(viewer);
  // A failed read is the page's failure: app/error.tsx says why (the database, or the server) and retries.
  const [rows, all] = await Promise.all([listApiKeys(pool(), own), own ? null : listTenants(pool())]);
  const tenants = all ? all.map((t) => t.id) : own ? [own] : [];
  const keys: KeyView[] = rows.map((k) => ({
    id: k.id,
    tenantId: k.tenantId,
    name: k.name,
    prefix: k.prefix,
    createdBy: k.createdBy,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt && k.lastUsedAt.toISOString(),
    revokedAt: k.revokedAt && k.revokedAt.toISOString(),
  }));
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="mt-1 text-sm text-neutral-600">
          {own ? `Keys for tenant ${own}` : "Keys for every tenant"}: each key acts for its tenant only, through the{" "}
          <a href="/api-docs" className="font-medium text-neutral-700 underline underline-offset-2 hover:text-neutral-900">
            tenant API
          </a>{" "}
          (<code className="font-mono text-xs">Authorization: Bearer jsk_…</code>). The secret is shown once, when the key is created; only its
          SHA-256 is kept.
        </p>
      </div>
      <ApiKeysView keys={keys} tenants={tenants} fixedTenant={own} />
    </div>
  );
}
