"use client";

import { useEffect, useRef, type ReactNode } from "react";

/**
 * A modal dialog on the native <dialog>: it traps focus, closes on Escape and
 * gives focus back to what opened it. On opening, focus goes to the element
 * marked `data-safe` (Cancel, Go back), never to the button that acts, so Enter
 * alone never confirms; buttons that appear later (a dry run's answer) do not take it.
 */
export function Modal({
  isOpen,
  onClose,
  labelledBy,
  describedBy,
  className,
  children,
}: {
  isOpen: boolean;
  onClose: () => void;
  labelledBy: string;
  describedBy?: string;
  className: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // No close() on unmount: removing the dialog closes it, and a close() there would fire
  // `close` (and so onClose) after a Strict Mode remount had opened it again.
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (isOpen && !d.open) {
      d.showModal();
      d.querySelector<HTMLElement>("[data-safe]")?.focus();
    }
    if (!isOpen && d.open) d.close();
  }, [isOpen]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      className={`m-auto w-full rounded-lg border border-neutral-200 bg-white p-0 text-neutral-900 shadow-xl backdrop:bg-black/40 ${className}`}
    >
      {children}
    </dialog>
  );
}

/** Closes the dialog this element is in (its `close` event then calls the Modal's onClose). */
export const closeDialogOf = (el: HTMLElement) => el.closest("dialog")?.close();
