"use client";

import { useState, type FormEvent } from "react";
import { Field, INPUT } from "@/components/fields";
import { Options } from "@/components/options";
import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/permissions";
import { createUserAction } from "./actions";
import { CreateFooter, TenantSelect, REFRESH } from "./admin-fields";
import { useAction } from "@/components/use-action";

const str = (form: FormData, name: string) => String(form.get(name) ?? "");

export function CreateUserForm({ tenants }: { tenants: { id: string; name: string }[] }) {
  const [role, setRole] = useState<Role>("tenant");
  const { result, pending, run } = useAction(createUserAction, REFRESH);
  const isTenant = role === "tenant";

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    run(
      {
        email: str(form, "email"),
        name: str(form, "name"),
        password: str(form, "password"),
        role,
        tenantId: isTenant ? str(form, "tenantId") || null : null,
        tenantOwner: isTenant && form.get("tenantOwner") === "on",
      },
      () => formEl.reset(),
    );
  }

  return (
    <form onSubmit={onSubmit} aria-label="Add a user" className="space-y-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Field id="u-email" label="Email">
          <input id="u-email" name="email" type="email" required maxLength={200} autoComplete="off" className={INPUT} />
        </Field>
        <Field id="u-name" label="Name">
          <input id="u-name" name="name" required maxLength={100} autoComplete="off" className={INPUT} />
        </Field>
        <Field id="u-password" label="Initial password" hint="at least 10 characters">
          <input
            id="u-password"
            name="password"
            type="password"
            required
            minLength={10}
            maxLength={200}
            autoComplete="new-password"
            className={INPUT}
          />
        </Field>
        <Field id="u-role" label="Role">
          <select id="u-role" name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} className={INPUT}>
            <Options of={ROLES} label={(r) => ROLE_LABELS[r]} />
          </select>
        </Field>
        <Field id="u-tenant" label="Tenant" hint={isTenant ? undefined : "tenant members only"}>
          <TenantSelect id="u-tenant" tenants={tenants} isTenant={isTenant} defaultValue="" />
        </Field>
        <div className="flex items-end pb-1.5">
          <label className="flex items-center gap-2 text-sm text-neutral-700">
            <input
              type="checkbox"
              name="tenantOwner"
              disabled={!isTenant}
              className="size-4 rounded border-neutral-300 accent-neutral-900 disabled:opacity-50"
            />
            Tenant owner <span className="text-xs text-neutral-600">(manages the tenant&apos;s API keys)</span>
          </label>
        </div>
      </div>
      <CreateFooter result={result} pending={pending} label="Create user" />
    </form>
  );
}
