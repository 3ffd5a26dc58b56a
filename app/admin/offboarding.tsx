"use client";

import { type FormEvent } from "react";
import { INPUT, PRIMARY, SECONDARY } from "@/components/fields";
import { deactivateUserAction, reactivateUserAction, resetPasswordAction, resumeTenantAction, suspendTenantAction } from "./actions";
import { ResultNote, useAction } from "@/components/use-action";
import { REFRESH } from "./admin-fields";

/** A user's access: deactivate or reactivate, and set a new password. Every step is checked and audited on the server. */
export function UserAccess({
  user,
  isSelf,
  onClose,
}: {
  user: { id: string; email: string; deactivated: boolean };
  isSelf: boolean;
  onClose: () => void;
}) {
  const toggle = useAction(user.deactivated ? reactivateUserAction : deactivateUserAction, REFRESH);
  const reset = useAction(resetPasswordAction, REFRESH);
  const id = `pw-${user.id}`;

  function onReset(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    reset.run({ userId: user.id, password: String(new FormData(formEl).get("password") ?? "") }, () => formEl.reset());
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          disabled={toggle.pending || (isSelf && !user.deactivated)}
          onClick={() => toggle.run({ userId: user.id })}
          className={user.deactivated ? SECONDARY : PRIMARY}
        >
          {user.deactivated ? `Reactivate ${user.email}` : `Deactivate ${user.email}`}
        </button>
        <p className="text-xs text-neutral-500">
          {user.deactivated
            ? "They can sign in again; API keys revoked when they were deactivated stay revoked."
            : isSelf
              ? "This is you: another admin can deactivate you."
              : "Their sessions end at once, they cannot sign in, and the API keys they created are revoked."}
        </p>
        <button type="button" onClick={onClose} className={`${SECONDARY} ml-auto`}>
          Close
        </button>
      </div>
      <ResultNote result={toggle.result} />
      <form onSubmit={onReset} aria-label={`New password for ${user.email}`} className="flex flex-wrap items-end gap-3">
        <div className="flex w-72 flex-col gap-1">
          <label htmlFor={id} className="text-xs font-medium text-neutral-600">
            New password (at least 10 characters)
          </label>
          <input id={id} name="password" type="password" autoComplete="new-password" required minLength={10} maxLength={200} className={INPUT} />
        </div>
        <button type="submit" disabled={reset.pending} className={SECONDARY}>
          {reset.pending ? "Saving…" : "Set password"}
        </button>
      </form>
      <ResultNote result={reset.result} />
    </div>
  );
}

/** Suspend or resume a tenant: its members and API keys stop or start again; its jobs stay readable to staff. */
export function TenantAccess({ tenant }: { tenant: { id: string; suspended: boolean } }) {
  const { result, pending, run } = useAction(tenant.suspended ? resumeTenantAction : suspendTenantAction, REFRESH);
  return (
    <div className="space-y-2">
      <button type="button" disabled={pending} onClick={() => run({ id: tenant.id })} className={SECONDARY}>
        {tenant.suspended ? `Resume tenant ${tenant.id}` : `Suspend tenant ${tenant.id}`}
      </button>
      <ResultNote result={result} />
    </div>
  );
}
