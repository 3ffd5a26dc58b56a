"use client";

import { useState, type FormEvent } from "react";
import { LocalDay } from "@/components/time-zone";
import { None } from "@/components/cells";
import { Options } from "@/components/options";
import { SubmitButton } from "@/components/submit-button";
import { actionsColumn, DataTable } from "@/components/data-table";
import { INPUT, SECONDARY } from "@/components/fields";
import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/permissions";
import { setUserRoleAction } from "./actions";
import { UserAccess } from "./offboarding";
import { EditToggle, TenantSelect, REFRESH } from "./admin-fields";
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

export function UsersTable({ users, tenants, viewerId }: { users: UserItem[]; tenants: { id: string; name: string }[]; viewerId: string }) {
  // Which row's panel is open: its role editor or its access (deactivate, password).
  const [editing, setEditing] = useState<string | null>(null);
  const [access, setAccess] = useState<string | null>(null);
  return (
    <DataTable
      framed
      caption="Users"
      rows={users}
      rowKey={(u) => u.id}
      detail={(u) =>
        (access === u.id || editing === u.id) && (
          <div className="space-y-3">
            {access === u.id && <UserAccess user={u} isSelf={u.id === viewerId} onClose={() => setAccess(null)} />}
            {editing === u.id && <RoleEditor user={u} tenants={tenants} isSelf={u.id === viewerId} onClose={() => setEditing(null)} />}
          </div>
        )
      }
      columns={[
        {
          header: "Email",
          isRowHeader: true,
          className: "max-w-64 truncate font-medium",
          cell: (u) => (
            <span title={u.email}>
              {u.email}
              {u.id === viewerId && <span className="ml-1.5 text-xs font-normal text-neutral-600">(you)</span>}
              {u.deactivated && (
                <span className="ml-1.5 rounded-full bg-red-50 px-2 py-0.5 text-xs font-medium text-red-800 ring-1 ring-red-600/20">deactivated</span>
              )}
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
        { header: "Created", className: "whitespace-nowrap text-neutral-600", cell: (u) => <LocalDay at={new Date(u.createdAt)} /> },
        actionsColumn((u: UserItem) => (
          <span className="space-x-2 whitespace-nowrap">
            <EditToggle
              isOpen={access === u.id}
              label="Access"
              name={`Access of ${u.email}`}
              onToggle={() => setAccess(access === u.id ? null : u.id)}
            />
            <EditToggle
              isOpen={editing === u.id}
              label="Change role"
              name={`Change role of ${u.email}`}
              onToggle={() => setEditing(editing === u.id ? null : u.id)}
            />
          </span>
        )),
      ]}
    />
  );
}

function RoleEditor({
  user,
  tenants,
  isSelf,
  onClose,
}: {
  user: UserItem;
  tenants: { id: string; name: string }[];
  isSelf: boolean;
  onClose: () => void;
}) {
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
          <button type="button" onClick={onClose} className={SECONDARY}>
            Close
          </button>
          <SubmitButton pending={pending} busy="Saving…">
            Save role
          </SubmitButton>
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
