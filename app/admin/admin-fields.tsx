"use client";

import { INPUT, PRIMARY } from "@/components/fields";
import { ResultNote, type Changes } from "@/components/use-action";
import type { Result } from "@/lib/result";

/** A create form's last line: what the last try answered, and the button. */
export function CreateFooter({ result, pending, label }: { result: Result<unknown> | null; pending: boolean; label: string }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <div className="min-w-0 flex-1">
        <ResultNote result={result} />
      </div>
      <button type="submit" disabled={pending} className={PRIMARY}>
        {pending ? "Creating…" : label}
      </button>
    </div>
  );
}

/** The tenant a user belongs to: chosen only for the tenant role. */
export function TenantSelect(props: { id: string; tenants: { id: string; name: string }[]; isTenant: boolean; defaultValue: string }) {
  const { id, tenants, isTenant, defaultValue } = props;
  return (
    <select id={id} name="tenantId" required={isTenant} disabled={!isTenant} defaultValue={defaultValue} className={INPUT}>
      <option value="">{isTenant ? "Choose a tenant" : "—"}</option>
      {tenants.map((t) => (
        <option key={t.id} value={t.id}>
          {t.id} · {t.name}
        </option>
      ))}
    </select>
  );
}

/** What an admin action changes: the page's lists, rendered on the server. */
export const REFRESH: Changes = { refresh: true };
