"use client";

import { useId, useState } from "react";

const PREVIEW_CHARS = 160;

/**
 * Untrusted text (an error message) as plain React text: the first line or
 * so, and a button that shows all of it, whitespace kept.
 */
export function ExpandableText({ text, label }: { text: string; label: string }) {
  const [isOpen, setIsOpen] = useState(false);
  const id = useId();
  const firstLine = text.split("\n", 1)[0] ?? "";
  const isLong = text.length > PREVIEW_CHARS || firstLine.length < text.length;
  const preview = firstLine.length > PREVIEW_CHARS ? `${firstLine.slice(0, PREVIEW_CHARS)}…` : isLong ? `${firstLine} …` : text;
  return (
    <div className="text-xs text-neutral-800">
      <p id={id} className="font-mono break-words whitespace-pre-wrap">
        {isOpen ? text : preview}
      </p>
      {isLong && (
        <button
          type="button"
          aria-expanded={isOpen}
          aria-controls={id}
          aria-label={isOpen ? `Show less of ${label}` : `Show all of ${label}`}
          onClick={() => setIsOpen((o) => !o)}
          className="mt-1 font-medium text-blue-700 underline"
        >
          {isOpen ? "Show less" : `Show all (${text.length.toLocaleString("en-US")} characters)`}
        </button>
      )}
    </div>
  );
}
