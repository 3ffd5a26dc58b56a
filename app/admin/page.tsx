import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Card } from "@/components/charts/card";
import { listTenants } from "@/lib/auth/tenants";
import { listUsers } from "@/lib/auth/users";
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
  // A failed read is the page's failure: app/error.tsx says why (the database, or the server) and retries.
  const [users, tenants] = await Promise.all([listUsers(pool()), listTenants(pool())]);
  const tenantOptions = tenants.map((t) => ({ id: t.id, name: t.name }));

  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Admin</h1>
        <p className="mt-1 text-sm text-neutral-600">
          Users, their roles and tenants. Every change, and every refused attempt, is recorded in the audit log.
        </p>
      </div>

      <Section id="users" title="Users" count={users.length} noun="user">
        <UsersTable
          viewerId={viewer.userId}
          tenants={tenantOptions}
          // Only the dates change on the way to the browser: strings, and a flag for deactivated.
          users={users.map(({ createdAt, deactivatedAt, ...u }) => ({
            ...u,
            createdAt: createdAt.toISOString(),
            deactivated: deactivatedAt !== null,
          }))}
        />
        <Card title="Add a user" id="add-user">
          <CreateUserForm tenants={tenantOptions} />
        </Card>
      </Section>

      <Section id="tenants" title="Tenants" count={tenants.length} noun="tenant">
        <TenantsTable
          tenants={tenants.map(({ createdAt, suspendedAt, ...t }) => ({
            ...t,
            createdAt: createdAt.toISOString(),
            suspended: suspendedAt !== null,
          }))}
        />
        <Card title="Add a tenant" id="add-tenant">
          <CreateTenantForm />
        </Card>
      </Section>
    </div>
  );
}

/** A titled list with how many it holds (`#<id>-heading` names the section), then its table and form. */
function Section({ id, title, count, noun, children }: { id: string; title: string; count: number; noun: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="space-y-4">
      <div className="flex items-baseline justify-between gap-3">
        <h2 id={`${id}-heading`} className="text-lg font-semibold tracking-tight">
          {title}
        </h2>
        <p className="text-sm text-neutral-600 tabular-nums">
          {count} {count === 1 ? noun : `${noun}s`}
        </p>
      </div>
      {children}
    </section>
  );
}
