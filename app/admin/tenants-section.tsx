"use client";

import type { FormEvent } from "react";
import type { Column } from "@/components/data-table";
import { Field, INPUT } from "@/components/fields";
import { createTenantAction, renameTenantAction } from "./actions";
import { TenantAccess } from "./offboarding";
import { CreateFooter, REFRESH } from "./admin-fields";
import { CloseOrSave, createdColumn, EditorTable, OffBadge, type RowEditor } from "./editor-table";
import { ResultNote, useAction } from "@/components/use-action";

export type TenantItem = { id: string; name: string; users: number; createdAt: string; suspended: boolean };

/** Tenant names are anyone's text: rendered as text nodes only, never as markup. */
export function TenantsTable({ tenants }: { tenants: TenantItem[] }) {
  return <EditorTable caption="Tenants" rows={tenants} rowKey={(t) => t.id} editors={EDITORS} columns={COLUMNS} />;
}

const EDITORS: RowEditor<TenantItem>[] = [
  {
    label: "Edit",
    name: (t) => `Rename or suspend tenant ${t.id}`,
    panel: (t, close) => (
      <>
        <RenameForm tenant={t} onClose={close} />
        <TenantAccess tenant={t} />
      </>
    ),
  },
];

const COLUMNS: Column<TenantItem>[] = [
  {
    header: "Id",
    isRowHeader: true,
    className: "font-mono text-xs font-medium",
    cell: (t) => (
      <>
        {t.id}
        {t.suspended && <OffBadge>suspended</OffBadge>}
      </>
    ),
  },
  { header: "Name", className: "max-w-md break-words", cell: (t) => <span data-testid={`tenant-name-${t.id}`}>{t.name}</span> },
  { header: "Users", align: "right", className: "tabular-nums", cell: (t) => t.users },
  createdColumn(),
];

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
        <CloseOrSave pending={pending} save="Save name" onClose={onClose} />
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
