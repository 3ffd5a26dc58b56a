"use client";

import { useState, type FormEvent } from "react";
import { LocalDay } from "@/components/time-zone";
import { actionsColumn, DataTable } from "@/components/data-table";
import { Field, INPUT, SECONDARY } from "@/components/fields";
import { SubmitButton } from "@/components/submit-button";
import { createTenantAction, renameTenantAction } from "./actions";
import { TenantAccess } from "./offboarding";
import { CreateFooter, EditToggle, REFRESH } from "./admin-fields";
import { ResultNote, useAction } from "@/components/use-action";

export type TenantItem = { id: string; name: string; users: number; createdAt: string; suspended: boolean };

/** Tenant names are anyone's text: rendered as text nodes only, never as markup. */
export function TenantsTable({ tenants }: { tenants: TenantItem[] }) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <DataTable
      framed
      caption="Tenants"
      rows={tenants}
      rowKey={(t) => t.id}
      detail={(t) =>
        editing === t.id && (
          <div className="space-y-3">
            <RenameForm tenant={t} onClose={() => setEditing(null)} />
            <TenantAccess tenant={t} />
          </div>
        )
      }
      columns={[
        {
          header: "Id",
          isRowHeader: true,
          className: "font-mono text-xs font-medium",
          cell: (t) => (
            <>
              {t.id}
              {t.suspended && (
                <span className="ml-1.5 rounded-full bg-red-50 px-2 py-0.5 font-sans text-xs font-medium text-red-800 ring-1 ring-red-600/20">
                  suspended
                </span>
              )}
            </>
          ),
        },
        { header: "Name", className: "max-w-md break-words", cell: (t) => <span data-testid={`tenant-name-${t.id}`}>{t.name}</span> },
        { header: "Users", align: "right", className: "tabular-nums", cell: (t) => t.users },
        { header: "Created", className: "whitespace-nowrap text-neutral-600", cell: (t) => <LocalDay at={new Date(t.createdAt)} /> },
        actionsColumn((t: TenantItem) => (
          <EditToggle
            isOpen={editing === t.id}
            label="Edit"
            name={`Rename or suspend tenant ${t.id}`}
            onToggle={() => setEditing(editing === t.id ? null : t.id)}
          />
        )),
      ]}
    />
  );
}

function RenameForm({ tenant, onClose }: { tenant: TenantItem; onClose: () => void }) {
  const { result, pending, run } = useAction(renameTenantAction, REFRESH);
  const id = `t-rename-${tenant.id}`;
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    run({ id: tenant.id, name: String(new FormData(e.currentTarget).get("name") ?? "") });
  }
  return (
    <form onSubmit={onSubmit} aria-label={`Rename ${tenant.id}`} className="space-y-2">
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex min-w-64 flex-1 flex-col gap-1">
          <label htmlFor={id} className="text-xs font-medium text-neutral-600">
            New name of {tenant.id}
          </label>
          <input id={id} name="name" required maxLength={200} defaultValue={tenant.name} className={INPUT} />
        </div>
        <button type="button" onClick={onClose} className={SECONDARY}>
          Close
        </button>
        <SubmitButton pending={pending} busy="Saving…">
          Save name
        </SubmitButton>
      </div>
      <ResultNote result={result} />
    </form>
  );
}

export function CreateTenantForm() {
  const { result, pending, run } = useAction(createTenantAction, REFRESH);
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
      <CreateFooter result={result} pending={pending} label="Create tenant" />
    </form>
  );
}
