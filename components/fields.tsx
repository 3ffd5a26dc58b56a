import type { ReactNode } from "react";

export const INPUT =
  "h-8 w-full min-w-0 rounded-md border border-neutral-300 bg-white px-2 text-sm text-neutral-900 shadow-xs placeholder:text-neutral-400 focus-visible:border-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-neutral-900/20";

export const BUTTON =
  "inline-flex h-8 items-center justify-center gap-1.5 rounded-md border px-3 text-sm font-medium shadow-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-neutral-900 disabled:cursor-not-allowed disabled:opacity-50";
export const PRIMARY = `${BUTTON} border-neutral-900 bg-neutral-900 text-white hover:bg-neutral-800`;
export const DANGER = `${BUTTON} border-red-700 bg-red-700 text-white hover:bg-red-800`;
export const SECONDARY = `${BUTTON} border-neutral-300 bg-white text-neutral-700 hover:bg-neutral-50`;

/** A labelled control: the label names it for screen readers and for Playwright's getByLabel. */
export function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-neutral-600">
        {label}
        {hint && <span className="ml-1 font-normal text-neutral-600">{hint}</span>}
      </label>
      {children}
    </div>
  );
}
