import type { ReactNode } from "react";
import { PRIMARY } from "@/components/fields";

/** A form's submit button: disabled while its action runs, and saying so then (`busy`, e.g. "Saving…"). */
export function SubmitButton({ pending, busy, children }: { pending: boolean; busy: string; children: ReactNode }) {
  return (
    <button type="submit" disabled={pending} className={PRIMARY}>
      {pending ? busy : children}
    </button>
  );
}

/** A create form's last line: what the last try answered (the children), and the submit button. */
export function CreateFooter({ pending, label, children }: { pending: boolean; label: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <div className="min-w-0 flex-1 space-y-2">{children}</div>
      <SubmitButton pending={pending} busy="Creating…">
        {label}
      </SubmitButton>
    </div>
  );
}
