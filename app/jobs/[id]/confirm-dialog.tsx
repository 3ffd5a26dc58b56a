"use client";

import { useEffect, useId, useRef } from "react";

/**
 * A modal question before a destructive action. The native <dialog> traps
 * focus, closes on Escape and gives focus back to the button that opened it.
 * "Go back" has the initial focus, so Enter alone never confirms.
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
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  // No close() on cleanup: unmounting removes the dialog, which closes it, and a close()
  // there would fire `close` (and so onClose) after a Strict Mode remount had reopened it.
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      className="m-auto w-full max-w-md rounded-lg border border-neutral-200 bg-white p-6 text-neutral-900 shadow-xl backdrop:bg-neutral-900/40"
    >
      <h2 id={`${id}-title`} className="text-base font-semibold">
        {title}
      </h2>
      <p id={`${id}-body`} className="mt-2 text-sm text-neutral-600">
        {body}
      </p>
      <div className="mt-6 flex justify-end gap-2">
        <button
          type="button"
          autoFocus
          onClick={() => ref.current?.close()}
          className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-800 hover:bg-neutral-50"
        >
          Go back
        </button>
        <button
          type="button"
          onClick={onConfirm}
          className="rounded-md border border-red-700 bg-red-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-700"
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
