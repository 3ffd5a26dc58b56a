"use client";

import { useId, useState } from "react";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { actionsColumn, DataTable } from "@/components/data-table";
import { LocalTime } from "@/components/time-zone";
import { useAction } from "@/components/use-action";
import { createApiKeyAction, revokeApiKeyAction } from "./actions";
import type { KeyView } from "./wire";

const input = "rounded-md border border-neutral-300 bg-white px-2 py-1.5 text-sm shadow-xs";
const button = "rounded-md border px-3 py-1.5 text-sm font-medium shadow-xs disabled:cursor-not-allowed disabled:opacity-50";

type Created = { secret: string; prefix: string; tenantId: string };

/** Create a key (its secret shown once, here), and list and revoke keys. */
export function ApiKeysView({ keys, tenants, fixedTenant }: { keys: KeyView[]; tenants: string[]; fixedTenant: string | null }) {
  // The keys are read by the server component: a change re-renders it.
  const creating = useAction(createApiKeyAction, { refresh: true });
  const revokeKey = useAction(revokeApiKeyAction, { refresh: true });
  const [created, setCreated] = useState<Created | null>(null);
  const [last, setLast] = useState<"create" | "revoke" | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  const isPending = creating.pending || revokeKey.pending;

  const create = (form: FormData) => {
    setLast("create");
    creating.run({ name: String(form.get("name") ?? ""), tenantId: fixedTenant ?? String(form.get("tenantId") ?? "") }, setCreated);
  };
  const revoke = (key: KeyView) => {
    setRevoking(null);
    setLast("revoke");
    revokeKey.run({ id: key.id });
  };
  const revoked = last === "revoke" ? revokeKey.result : null;
  const failedCreate = last === "create" && creating.result && !creating.result.ok ? creating.result.error.message : null;
  const message = revoked
    ? revoked.ok
      ? { ok: true, text: `Revoked ${revoked.data.prefix}…: it no longer authenticates.` }
      : { ok: false, text: revoked.error.message }
    : failedCreate && { ok: false, text: failedCreate };

  return (
    <div className="space-y-6">
      <section aria-labelledby="create-key-heading" className="rounded-lg border border-neutral-200 bg-white p-5 shadow-xs">
        <h2 id="create-key-heading" className="mb-4 text-base font-semibold tracking-tight">
          Create a key
        </h2>
        <form action={create} className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col gap-1 text-xs font-medium text-neutral-600">
            Name
            <input name="name" required maxLength={100} placeholder="e.g. billing-service" className={`${input} w-64`} />
          </label>
          {fixedTenant ? (
            <p className="pb-1.5 text-sm text-neutral-600">
              Tenant <span className="font-mono font-medium text-neutral-900">{fixedTenant}</span>
            </p>
          ) : (
            <label className="flex flex-col gap-1 text-xs font-medium text-neutral-600">
              Tenant
              <select name="tenantId" required defaultValue="" className={input}>
                <option value="" disabled>
                  Choose…
                </option>
                {tenants.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="submit" disabled={isPending} className={`${button} border-neutral-900 bg-neutral-900 text-white hover:bg-neutral-800`}>
            Create key
          </button>
        </form>
        {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
      </section>

      <div role="status" aria-live="polite" className="min-h-5 text-sm">
        {isPending ? (
          <span className="text-neutral-600">Working…</span>
        ) : (
          message && <span className={`font-medium ${message.ok ? "text-emerald-800" : "text-red-800"}`}>{message.text}</span>
        )}
      </div>

      <section aria-labelledby="keys-heading" className="rounded-lg border border-neutral-200 bg-white shadow-xs">
        <h2 id="keys-heading" className="px-5 pt-5 pb-3 text-base font-semibold tracking-tight">
          Keys
        </h2>
        {keys.length === 0 ? (
          <p className="px-5 pb-5 text-sm text-neutral-600">No keys yet.</p>
        ) : (
          <DataTable
            caption="API keys"
            rows={keys}
            rowKey={(k) => k.id}
            rowTestId="api-key-row"
            rowClassName={(k) => (k.revokedAt ? "text-neutral-600" : undefined)}
            columns={[
              { header: "Name", isRowHeader: true, className: "font-medium break-all", cell: (k) => k.name },
              ...(fixedTenant ? [] : [{ header: "Tenant", className: "font-mono text-xs", cell: (k: KeyView) => k.tenantId }]),
              { header: "Key", className: "font-mono text-xs whitespace-nowrap", cell: (k) => `${k.prefix}…` },
              {
                header: "Created",
                className: "text-xs",
                cell: (k) => (
                  <>
                    <LocalTime at={new Date(k.createdAt)} className="block whitespace-nowrap" />
                    <span className="block break-all text-neutral-600">by {k.createdBy}</span>
                  </>
                ),
              },
              {
                header: "Last used",
                className: "text-xs whitespace-nowrap",
                cell: (k) => (k.lastUsedAt ? <LocalTime at={new Date(k.lastUsedAt)} /> : "never"),
              },
              {
                header: "Status",
                className: "text-xs whitespace-nowrap",
                cell: (k) =>
                  k.revokedAt ? (
                    <span>
                      Revoked <LocalTime at={new Date(k.revokedAt)} />
                    </span>
                  ) : (
                    <span className="rounded-full bg-emerald-50 px-2 py-0.5 font-medium text-emerald-800 ring-1 ring-emerald-200 ring-inset">
                      Active
                    </span>
                  ),
              },
              actionsColumn(
                (k: KeyView) =>
                  !k.revokedAt && (
                    <button
                      type="button"
                      disabled={isPending}
                      onClick={() => setRevoking(k)}
                      aria-label={`Revoke ${k.name} (${k.prefix}…)`}
                      className={`${button} border-red-300 bg-white py-1 text-xs text-red-700 hover:bg-red-50`}
                    >
                      Revoke
                    </button>
                  ),
              ),
            ]}
          />
        )}
      </section>

      {revoking && (
        <ConfirmDialog
          title={`Revoke ${revoking.prefix}…?`}
          body={`"${revoking.name}" (tenant ${revoking.tenantId}) stops working at once: every request with it will be refused. This cannot be undone.`}
          confirmLabel="Yes, revoke"
          onConfirm={() => revoke(revoking)}
          onClose={() => setRevoking(null)}
        />
      )}
    </div>
  );
}

/** The secret, once: it is in this component's state only, and gone when dismissed or the page is left. */
function NewSecret({ created, onDone }: { created: Created; onDone: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  return (
    <div role="region" aria-labelledby={`${id}-title`} className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-4">
      <p id={`${id}-title`} className="text-sm font-semibold text-amber-900">
        Copy the new key for tenant {created.tenantId} now: it will not be shown again.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <input
          readOnly
          aria-label="New API key"
          data-testid="new-key-secret"
          value={created.secret}
          onFocus={(e) => e.currentTarget.select()}
          className={`${input} w-full max-w-xl font-mono text-xs`}
        />
        <button
          type="button"
          onClick={() =>
            navigator.clipboard?.writeText(created.secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
          className={`${button} border-neutral-300 bg-white text-neutral-800 hover:bg-neutral-50`}
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDone} className={`${button} border-neutral-300 bg-white text-neutral-800 hover:bg-neutral-50`}>
          Done
        </button>
      </div>
    </div>
  );
}
