"use client";

import { useState } from "react";

/** Copies text to the clipboard; `copied` says so for a moment and 1.5 s later goes back to false (also when the browser refused). */
export function useCopy(): { copied: boolean; copy: (text: string) => Promise<void> } {
  const [copied, setCopied] = useState(false);
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      setCopied(false);
    }
  };
  return { copied, copy };
}
