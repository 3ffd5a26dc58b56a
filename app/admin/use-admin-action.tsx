"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { INPUT, PRIMARY, SECONDARY } from "@/components/fields";
import type { Result } from "@/lib/result";

/** What an admin action answers: what was done (`message`), or why nothing was. */
type AdminResult = Result<unknown>;

/** Run an admin server action, keep its answer to show, and re-render the page's lists after a change. */
export function useAdminAction<I, T>(action: (input: I) => Promise<Result<T>>) {
  const router = useRouter();
  const [result, setResult] = useState<Result<T> | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (input: I, onApplied?: () => void) =>
    startTransition(async () => {
      let r: Result<T>;
      try {
        r = await action(input);
      } catch {
        r = { ok: false, error: { code: "internal", message: "The server did not answer. Nothing may have been saved: reload the page to see." } };
      }
      setResult(r);
      if (r.ok) {
        onApplied?.();
        router.refresh();
      }
    });
  return { result, pending, run, clear: () => setResult(null) };
}

/** The answer of the last action, announced to screen readers. */
export function ResultNote({ result }: { result: AdminResult | null }) {
  if (!result) return null;
  return result.ok ? (
    <p role="status" className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
      {result.message}
    </p>
  ) : (
    <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
      {result.error.message}
    </p>
  );
}

/** The button that opens a row's editor under it (change role, rename), and closes it again. */
export function EditToggle({ isOpen, label, name, onToggle }: { isOpen: boolean; label: string; name: string; onToggle: () => void }) {
  return (
    <button type="button" className={SECONDARY} aria-expanded={isOpen} aria-label={name} onClick={onToggle}>
      {label}
    </button>
  );
}

/** A create form's last line: what the last try answered, and the button. */
export function CreateFooter({ result, pending, label }: { result: AdminResult | null; pending: boolean; label: string }) {
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
