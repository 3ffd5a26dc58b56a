"use client";

import { useId, type ReactNode } from "react";
import { DANGER, PRIMARY, SECONDARY } from "@/components/fields";
import { closeDialogOf, Modal } from "@/components/modal";

/**
 * THE confirm dialog: a question before a change, then (for an operation on jobs) its answer in
 * the same place. "Go back" has the initial focus (components/modal.tsx), so Enter alone never
 * confirms. `confirmLabel` null: nothing left to confirm (the answer is shown), only Close.
 */
export function ConfirmDialog({
  title,
  subtitle,
  body,
  children,
  confirmLabel,
  isDestructive = true,
  isConfirmDisabled = false,
  onConfirm,
  onClose,
  wide = false,
}: {
  title: string;
  /** What it acts on, in small print under the title. */
  subtitle?: string;
  /** The question, in one sentence. */
  body?: string;
  /** What else the person should know before confirming (a dry run), or the answer. */
  children?: ReactNode;
  confirmLabel: string | null;
  isDestructive?: boolean;
  isConfirmDisabled?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  wide?: boolean;
}) {
  const id = useId();
  return (
    <Modal
      isOpen
      onClose={onClose}
      labelledBy={`${id}-title`}
      describedBy={body ? `${id}-body` : undefined}
      className={wide ? "max-w-xl" : "max-w-md"}
    >
      <div className="space-y-4 p-5">
        <div>
          <h2 id={`${id}-title`} className="text-base font-semibold">
            {title}
          </h2>
          {subtitle && <p className="mt-0.5 font-mono text-xs break-all text-neutral-600">{subtitle}</p>}
        </div>
        {body && (
          <p id={`${id}-body`} className="text-sm text-neutral-700">
            {body}
          </p>
        )}
        {children}
      </div>
      <div className="flex justify-end gap-2 rounded-b-lg border-t border-neutral-200 bg-neutral-50 px-5 py-3">
        <button type="button" data-safe onClick={(e) => closeDialogOf(e.currentTarget)} className={SECONDARY}>
          {confirmLabel === null ? "Close" : "Go back"}
        </button>
        {confirmLabel !== null && (
          <button type="button" disabled={isConfirmDisabled} onClick={onConfirm} className={isDestructive ? DANGER : PRIMARY}>
            {confirmLabel}
          </button>
        )}
      </div>
    </Modal>
  );
}
