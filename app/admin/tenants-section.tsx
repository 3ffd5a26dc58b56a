"use client";

import { Fragment, useState, type FormEvent } from "react";
import { Field, INPUT, PRIMARY, SECONDARY } from "@/app/jobs/_components/fields";
import { createTenantAction, renameTenantAction } from "./actions";
import { TenantAccess } from "./offboarding";
import { ResultNote, useAdminAction } from "./use-admin-action";

export type TenantItem = { id: string; name: string; users: number; createdAt: string; suspended: boolean };

const TH = "px-3 py-2 text-left text-xs font-medium whitespace-nowrap text-neutral-500";
const TD = "px-3 py-2 align-middle";

/** Tenant names are anyone's text: rendered as text nodes only, never as markup. */
export function TenantsTable({ tenants }: { tenants: TenantItem[] }) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white shadow-xs">
      <table className="w-full text-sm" aria-label="Tenants">
        <thead className="border-b border-neutral-200 bg-neutral-50">
          <tr>
            <th scope="col" className={TH}>Id</th>
            <th scope="col" className={TH}>Name</th>
            <th scope="col" className={`${TH} text-right`}>Users</th>
            <th scope="col" className={TH}>Created</th>
            <th scope="col" className={TH}><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-100">
          {tenants.map((t) => (
            <Fragment key={t.id}>
              <tr className="hover:bg-neutral-50">
                <td className={`${TD} font-mono text-xs font-medium`}>
                  {t.id}
                  {t.suspended && <span className="ml-1.5 rounded-full bg-red-50 px-2 py-0.5 font-sans text-xs font-medium text-red-800 ring-1 ring-red-600/20">suspended</span>}
                </td>
                <td className={`${TD} max-w-md break-words`} data-testid={`tenant-name-${t.id}`}>{t.name}</td>
                <td className={`${TD} text-right tabular-nums`}>{t.users}</td>
                <td className={`${TD} whitespace-nowrap text-neutral-600`}>{t.createdAt.slice(0, 10)}</td>
                <td className={`${TD} text-right`}>
                  <button type="button" className={SECONDARY} aria-expanded={editing === t.id} aria-label={`Rename or suspend tenant ${t.id}`} onClick={() => setEditing(editing === t.id ? null : t.id)}>
                    Edit
                  </button>
                </td>
              </tr>
              {editing === t.id && (
                <tr className="bg-neutral-50/70">
                  <td colSpan={5} className="space-y-3 px-3 py-3">
                    <RenameForm tenant={t} onClose={() => setEditing(null)} />
                    <TenantAccess tenant={t} />
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

function RenameForm({ tenant, onClose }: { tenant: TenantItem; onClose: () => void }) {
  const { result, pending, run } = useAdminAction(renameTenantAction);
  const id = `t-rename-${tenant.id}`;
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    run({ id: tenant.id, name: String(new FormData(e.currentTarget).get("name") ?? "") });
  }
  return (
    <form onSubmit={onSubmit} aria-label={`Rename ${tenant.id}`} className="space-y-2">
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex min-w-64 flex-1 flex-col gap-1">
          <label htmlFor={id} className="text-xs font-medium text-neutral-600">New name of {tenant.id}</label>
          <input id={id} name="name" required maxLength={200} defaultValue={tenant.name} className={INPUT} />
        </div>
        <button type="button" onClick={onClose} className={SECONDARY}>Close</button>
        <button type="submit" disabled={pending} className={PRIMARY}>{pending ? "Saving…" : "Save name"}</button>
      </div>
      <ResultNote result={result} />
    </form>
  );
}

export function CreateTenantForm() {
  const { result, pending, run } = useAdminAction(createTenantAction);
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    run({ id: String(form.get("id") ?? ""), name: String(form.get("name") ?? "") }, () => formEl.reset());
  }
  return (
    <form onSubmit={onSubmit} aria-label="Add a tenant" className="space-y-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[16rem_1fr]">
        <Field id="t-id" label="Tenant id" hint="lowercase letters, digits, dashes; cannot change later">
          <input id="t-id" name="id" required maxLength={40} autoComplete="off" className={`${INPUT} font-mono`} placeholder="initech" />
        </Field>
        <Field id="t-name" label="Name">
          <input id="t-name" name="name" required maxLength={200} autoComplete="off" className={INPUT} placeholder="Initech Corporation" />
        </Field>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0 flex-1">
          <ResultNote result={result} />
        </div>
        <button type="submit" disabled={pending} className={PRIMARY}>{pending ? "Creating…" : "Create tenant"}</button>
      </div>
    </form>
  );
}
