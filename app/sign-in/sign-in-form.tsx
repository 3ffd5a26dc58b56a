"use client";

import { useActionState } from "react";
import { signInAction, type SignInState } from "./actions";

/** The two fields, each named, typed and labelled alike; the email is kept after a failed try. */
const FIELDS = [
  { name: "email", label: "Email", autoComplete: "username" },
  { name: "password", label: "Password", autoComplete: "current-password" },
] as const;

export function SignInForm({ next }: { next: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInAction, { error: null, email: "" });
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="next" value={next} />
      {FIELDS.map(({ name, label, autoComplete }) => (
        <div key={name} className="space-y-1">
          <label htmlFor={name} className="block text-sm font-medium text-neutral-700">
            {label}
          </label>
          <input
            id={name}
            name={name}
            type={name}
            autoComplete={autoComplete}
            required
            defaultValue={name === "email" ? state.email : undefined}
            className="block w-full rounded-md border border-neutral-300 px-3 py-2 text-sm shadow-xs focus:border-neutral-500"
          />
        </div>
      ))}
      {state.error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
          {state.error}
        </p>
      )}
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded-md bg-neutral-900 px-3 py-2 text-sm font-medium text-white shadow-xs hover:bg-neutral-700 disabled:bg-neutral-400"
      >
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
