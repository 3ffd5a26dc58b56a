"use client";

import { Fragment, useState, type FormEvent } from "react";
import { INPUT, PRIMARY, SECONDARY } from "@/app/jobs/_components/fields";
import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/permissions";
import { setUserRoleAction } from "./actions";
import { UserAccess } from "./offboarding";
import { ResultNote, useAdminAction } from "./use-admin-action";

export type UserItem = { id: string; email: string; name: string; role: Role; tenantId: string | null; tenantOwner: boolean; createdAt: string; deactivated: boolean };

const TH = "px-3 py-2 text-left text-xs font-medium whitespace-nowrap text-neutral-500";
const TD = "px-3 py-2 align-middle";

export function UsersTable({ users, tenants, viewerId }: { users: UserItem[]; tenants: { id: string; name: string }[]; viewerId: string }) {
  // Which row's panel is open: its role editor or its access (deactivate, password).
  const [editing, setEditing] = useState<string | null>(null);
  const [access, setAccess] = useState<string | null>(null);
  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white shadow-xs">
      <table className="w-full text-sm" aria-label="Users">
        <thead className="border-b border-neutral-200 bg-neutral-50">
          <tr>
            <th scope="col" className={TH}>Email</th>
            <th scope="col" className={TH}>Name</th>
            <th scope="col" className={TH}>Role</th>
            <th scope="col" className={TH}>Tenant</th>
            <th scope="col" className={TH}>Tenant owner</th>
            <th scope="col" className={TH}>Created</th>
            <th scope="col" className={TH}><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-100">
          {users.map((u) => (
            <Fragment key={u.id}>
              <tr className="hover:bg-neutral-50">
                <td className={`${TD} max-w-64 truncate font-medium`} title={u.email}>
                  {u.email}
                  {u.id === viewerId && <span className="ml-1.5 text-xs font-normal text-neutral-500">(you)</span>}
                  {u.deactivated && <span className="ml-1.5 rounded-full bg-red-50 px-2 py-0.5 text-xs font-medium text-red-800 ring-1 ring-red-600/20">deactivated</span>}
                </td>
                <td className={`${TD} max-w-48 truncate`} title={u.name}>{u.name}</td>
                <td className={TD}>
                  <span className="rounded-full bg-neutral-100 px-2 py-0.5 text-xs font-medium text-neutral-700">{ROLE_LABELS[u.role]}</span>
                </td>
                <td className={TD}>{u.tenantId ?? <span className="text-neutral-400">—</span>}</td>
                <td className={TD}>{u.tenantOwner ? "Yes" : <span className="text-neutral-400">—</span>}</td>
                <td className={`${TD} whitespace-nowrap text-neutral-600`}>{u.createdAt.slice(0, 10)}</td>
                <td className={`${TD} space-x-2 text-right whitespace-nowrap`}>
                  <button
                    type="button"
                    className={SECONDARY}
                    aria-expanded={access === u.id}
                    aria-label={`Access of ${u.email}`}
                    onClick={() => setAccess(access === u.id ? null : u.id)}
                  >
                    Access
                  </button>
                  <button
                    type="button"
                    className={SECONDARY}
                    aria-expanded={editing === u.id}
                    aria-label={`Change role of ${u.email}`}
                    onClick={() => setEditing(editing === u.id ? null : u.id)}
                  >
                    Change role
                  </button>
                </td>
              </tr>
              {access === u.id && (
                <tr className="bg-neutral-50/70">
                  <td colSpan={7} className="px-3 py-3">
                    <UserAccess user={u} isSelf={u.id === viewerId} onClose={() => setAccess(null)} />
                  </td>
                </tr>
              )}
              {editing === u.id && (
                <tr className="bg-neutral-50/70">
                  <td colSpan={7} className="px-3 py-3">
                    <RoleEditor user={u} tenants={tenants} isSelf={u.id === viewerId} onClose={() => setEditing(null)} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RoleEditor({ user, tenants, isSelf, onClose }: { user: UserItem; tenants: { id: string; name: string }[]; isSelf: boolean; onClose: () => void }) {
  const [role, setRole] = useState<Role>(user.role);
  const { result, pending, run } = useAdminAction(setUserRoleAction);
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
          <label htmlFor={ids.role} className="text-xs font-medium text-neutral-600">Role</label>
          <select id={ids.role} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} className={INPUT}>
            {ROLES.map((r) => (
              <option key={r} value={r}>{ROLE_LABELS[r]}</option>
            ))}
          </select>
        </div>
        <div className="flex w-64 flex-col gap-1">
          <label htmlFor={ids.tenant} className="text-xs font-medium text-neutral-600">Tenant</label>
          <select id={ids.tenant} name="tenantId" required={isTenant} disabled={!isTenant} defaultValue={user.tenantId ?? ""} className={INPUT}>
            <option value="">{isTenant ? "Choose a tenant" : "—"}</option>
            {tenants.map((t) => (
              <option key={t.id} value={t.id}>{t.id} · {t.name}</option>
            ))}
          </select>
        </div>
        <label className="flex h-8 items-center gap-2 text-sm text-neutral-700">
          <input type="checkbox" name="tenantOwner" defaultChecked={user.tenantOwner} disabled={!isTenant} className="size-4 rounded border-neutral-300 accent-neutral-900 disabled:opacity-50" />
          Tenant owner
        </label>
        <div className="ml-auto flex gap-2">
          <button type="button" onClick={onClose} className={SECONDARY}>Close</button>
          <button type="submit" disabled={pending} className={PRIMARY}>{pending ? "Saving…" : "Save role"}</button>
        </div>
      </div>
      <p className="text-xs text-neutral-500">
        {isSelf ? "This is you: saving ends your own sessions, and you sign in again with the new role." : "Saving ends this user's sessions, so the new role applies at once."}
      </p>
      <ResultNote result={result} />
    </form>
  );
}
