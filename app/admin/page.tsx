import type { Metadata } from "next";
import { Card } from "@/components/charts/card";
import { listTenants, type TenantRow } from "@/lib/auth/tenants";
import { listUsers, type UserRow } from "@/lib/auth/users";
import { requirePage } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { CreateUserForm } from "./create-user-form";
import { CreateTenantForm, TenantsTable } from "./tenants-section";
import { UsersTable } from "./users-table";

export const metadata: Metadata = { title: "Admin" };
export const dynamic = "force-dynamic";

/** Users, roles and tenants. Only admins see this page; each action checks again on the server. */
export default async function AdminPage() {
  const viewer = await requirePage("admin:manage", "/admin");
  let users: UserRow[] | null = null;
  let tenants: TenantRow[] | null = null;
  try {
    [users, tenants] = await Promise.all([listUsers(pool()), listTenants(pool())]);
  } catch (err) {
    console.error("/admin: could not list users and tenants:", err);
  }
  const tenantOptions = (tenants ?? []).map((t) => ({ id: t.id, name: t.name }));

  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Admin</h1>
        <p className="mt-1 text-sm text-neutral-600">
          Users, their roles and tenants. Every change, and every refused attempt, is recorded in the audit log.
        </p>
      </div>

      {!users || !tenants ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900">
          Could not load users and tenants: the database did not answer. Details are in the server log.
        </div>
      ) : (
        <>
          <section aria-labelledby="users-heading" className="space-y-4">
            <div className="flex items-baseline justify-between gap-3">
              <h2 id="users-heading" className="text-lg font-semibold tracking-tight">
                Users
              </h2>
              <p className="text-sm text-neutral-600 tabular-nums">
                {users.length} {users.length === 1 ? "user" : "users"}
              </p>
            </div>
            <UsersTable
              viewerId={viewer.userId}
              tenants={tenantOptions}
              users={users.map((u) => ({
                id: u.id,
                email: u.email,
                name: u.name,
                role: u.role,
                tenantId: u.tenantId,
                tenantOwner: u.tenantOwner,
                createdAt: u.createdAt.toISOString(),
              }))}
            />
            <Card title="Add a user" id="add-user">
              <CreateUserForm tenants={tenantOptions} />
            </Card>
          </section>

          <section aria-labelledby="tenants-heading" className="space-y-4">
            <div className="flex items-baseline justify-between gap-3">
              <h2 id="tenants-heading" className="text-lg font-semibold tracking-tight">
                Tenants
              </h2>
              <p className="text-sm text-neutral-600 tabular-nums">
                {tenants.length} {tenants.length === 1 ? "tenant" : "tenants"}
              </p>
            </div>
            <TenantsTable tenants={tenants.map((t) => ({ id: t.id, name: t.name, users: t.users, createdAt: t.createdAt.toISOString() }))} />
            <Card title="Add a tenant" id="add-tenant">
              <CreateTenantForm />
            </Card>
          </section>
        </>
      )}
    </div>
  );
}
