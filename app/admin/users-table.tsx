"use client";

import { useState, type FormEvent } from "react";
import { None } from "@/components/cells";
import type { Column } from "@/components/data-table";
import type { TenantOption } from "@/lib/jobs/tenant-pick";
import { Options } from "@/components/options";
import { INPUT } from "@/components/fields";
import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/permissions";
import { setUserRoleAction } from "./actions";
import { UserAccess } from "./offboarding";
import { TenantSelect, REFRESH } from "./admin-fields";
import { CloseOrSave, createdColumn, EditorTable, OffBadge, type RowEditor } from "./editor-table";
import { ResultNote, useAction } from "@/components/use-action";

export type UserItem = {
  id: string;
  email: string;
  name: string;
  role: Role;
  tenantId: string | null;
  tenantOwner: boolean;
  createdAt: string;
  deactivated: boolean;
};

export function UsersTable({ users, tenants, viewerId }: { users: UserItem[]; tenants: TenantOption[]; viewerId: string }) {
  return <EditorTable caption="Users" rows={users} rowKey={(u) => u.id} editors={editors(tenants, viewerId)} columns={columns(viewerId)} />;
}

/** A user's access (deactivate, password) and their role. */
function editors(tenants: TenantOption[], viewerId: string): RowEditor<UserItem>[] {
  return [
    {
      label: "Access",
      name: (u) => `Access of ${u.email}`,
      panel: (u, close) => <UserAccess user={u} isSelf={u.id === viewerId} onClose={close} />,
    },
    {
      label: "Change role",
      name: (u) => `Change role of ${u.email}`,
      panel: (u, close) => <RoleEditor user={u} tenants={tenants} isSelf={u.id === viewerId} onClose={close} />,
    },
  ];
}

function columns(viewerId: string): Column<UserItem>[] {
  return [
    {
      header: "Email",
      isRowHeader: true,
      className: "max-w-64 truncate font-medium",
      cell: (u) => (
        <span title={u.email}>
          {u.email}
          {u.id === viewerId && <span className="ml-1.5 text-xs font-normal text-neutral-600">(you)</span>}
          {u.deactivated && <OffBadge>deactivated</OffBadge>}
        </span>
      ),
    },
    { header: "Name", className: "max-w-48 truncate", cell: (u) => <span title={u.name}>{u.name}</span> },
    {
      header: "Role",
      cell: (u) => <span className="rounded-full bg-neutral-100 px-2 py-0.5 text-xs font-medium text-neutral-700">{ROLE_LABELS[u.role]}</span>,
    },
    { header: "Tenant", cell: (u) => u.tenantId ?? <None /> },
    { header: "Tenant owner", cell: (u) => (u.tenantOwner ? "Yes" : <None text="no" />) },
    createdColumn(),
  ];
}

function RoleEditor({ user, tenants, isSelf, onClose }: { user: UserItem; tenants: TenantOption[]; isSelf: boolean; onClose: () => void }) {
  const [role, setRole] = useState<Role>(user.role);
  const { result, pending, run } = useAction(setUserRoleAction, REFRESH);
  const isTenant = role === "tenant";
  const ids = { role: `r-role-${user.id}`, tenant: `r-tenant-${user.id}` };

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    run({
      userId: user.id,
      role,
      tenantId: isTenant ? String(form.get("tenantId") ?? "") || null : null,
      tenantOwner: isTenant && form.get("tenantOwner") === "on",
    });
  }

  return (
    <form onSubmit={onSubmit} aria-label={`Role of ${user.email}`} className="space-y-2">
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex w-44 flex-col gap-1">
          <label htmlFor={ids.role} className="text-xs font-medium text-neutral-600">
            Role
          </label>
          <select id={ids.role} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} className={INPUT}>
            <Options of={ROLES} label={(r) => ROLE_LABELS[r]} />
          </select>
        </div>
        <div className="flex w-64 flex-col gap-1">
          <label htmlFor={ids.tenant} className="text-xs font-medium text-neutral-600">
            Tenant
          </label>
          <TenantSelect id={ids.tenant} tenants={tenants} isTenant={isTenant} defaultValue={user.tenantId ?? ""} />
        </div>
        <label className="flex h-8 items-center gap-2 text-sm text-neutral-700">
          <input
            type="checkbox"
            name="tenantOwner"
            defaultChecked={user.tenantOwner}
            disabled={!isTenant}
            className="size-4 rounded border-neutral-300 accent-neutral-900 disabled:opacity-50"
          />
          Tenant owner
        </label>
        <div className="ml-auto flex gap-2">
          <CloseOrSave pending={pending} save="Save role" onClose={onClose} />
        </div>
      </div>
      <p className="text-xs text-neutral-600">
        {isSelf
          ? "This is you: saving ends your own sessions, and you sign in again with the new role."
          : "Saving ends this user's sessions, so the new role applies at once."}
      </p>
      <ResultNote result={result} />
    </form>
  );
}
