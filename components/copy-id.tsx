"use client";

import { useCopy } from "./use-copy";

/** Copies a full id (the console prints 8 characters of it) to the clipboard. */
export function CopyId({ id, className = "" }: { id: string; className?: string }) {
  const { copied, copy } = useCopy();
  return (
    <button
      type="button"
      aria-label={copied ? `Copied ${id}` : `Copy full id ${id}`}
      title={copied ? "Copied" : `Copy ${id}`}
      onClick={async (e) => {
        e.preventDefault();
        e.stopPropagation();
        await copy(id);
      }}
      className={`inline-flex size-5 items-center justify-center rounded text-neutral-500 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-neutral-900 ${className}`}
    >
      {copied ? (
        <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3.5" fill="currentColor">
          <path d="M6.2 11.2 3 8l1.1-1.1 2.1 2.1 5.7-5.7L13 4.4z" />
        </svg>
      ) : (
        <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="1.4">
          <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
          <path d="M10.5 3.5v-.5A1.5 1.5 0 0 0 9 1.5H3A1.5 1.5 0 0 0 1.5 3v6A1.5 1.5 0 0 0 3 10.5h.5" />
        </svg>
      )}
    </button>
  );
}
