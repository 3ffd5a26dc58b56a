"use client";

import { useId } from "react";
import { closeDialogOf, Modal } from "@/components/modal";

/**
 * A modal question before a destructive action. "Go back" has the initial
 * focus (components/modal.tsx), so Enter alone never confirms.
 */
export function ConfirmDialog({
  title,
  body,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const id = useId();
  return (
    <Modal isOpen onClose={onClose} labelledBy={`${id}-title`} describedBy={`${id}-body`} className="max-w-md p-6">
      <h2 id={`${id}-title`} className="text-base font-semibold">
        {title}
      </h2>
      <p id={`${id}-body`} className="mt-2 text-sm text-neutral-700">
        {body}
      </p>
      <div className="mt-6 flex justify-end gap-2">
        <button
          type="button"
          data-safe
          onClick={(e) => closeDialogOf(e.currentTarget)}
          className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-800 hover:bg-neutral-50"
        >
          Go back
        </button>
        <button
          type="button"
          onClick={onConfirm}
          className="rounded-md border border-red-700 bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800"
        >
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
