"use client";

import { useEffect, useRef, type KeyboardEvent, type ReactNode } from "react";

const FOCUSABLE = "a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), summary";
/** Keys that a control inside a row needs for itself. */
const OWN_KEYS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

const rowsOf = (root: HTMLElement) => [...root.querySelectorAll<HTMLTableRowElement>("tbody > tr[data-row]")];
const focusablesOf = (row: HTMLElement) => [...row.querySelectorAll<HTMLElement>(FOCUSABLE)];

/**
 * Keyboard navigation for a DataTable: ↓ and ↑ move to the next or previous
 * row (to the control in the same place, a link to a link, a checkbox to a
 * checkbox, or to the row itself when it has none), Home and End to the first
 * and last row. A table with no control of its own is one tab stop, from which ↓ enters it.
 */
export function TableNav({ children, className, label }: { children: ReactNode; className: string; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // Only a table without controls needs a tab stop of its own; set after render, when its rows are known.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.tabIndex = el.querySelector(`tbody ${FOCUSABLE.split(", ").join(", tbody ")}`) ? -1 : 0;
  });

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const root = ref.current;
    if (!root || e.altKey || e.ctrlKey || e.metaKey || !["ArrowDown", "ArrowUp", "Home", "End"].includes(e.key)) return;
    const target = e.target as HTMLElement;
    if (OWN_KEYS.has(target.tagName) && !(target instanceof HTMLInputElement && target.type === "checkbox")) return;
    const rows = rowsOf(root);
    if (rows.length === 0) return;
    const row = target.closest<HTMLTableRowElement>("tbody > tr[data-row]");
    const at = row ? rows.indexOf(row) : -1;
    const next =
      e.key === "Home" ? 0 : e.key === "End" ? rows.length - 1 : e.key === "ArrowDown" ? Math.min(at + 1, rows.length - 1) : Math.max(at - 1, 0);
    const to = rows[next];
    if (!to || (row === to && at !== -1)) return;
    e.preventDefault();
    const place = row ? focusablesOf(row).indexOf(target) : 0;
    const controls = focusablesOf(to);
    const focus = controls[Math.max(0, Math.min(place, controls.length - 1))] ?? to;
    focus.focus();
    focus.scrollIntoView({ block: "nearest" });
  }

  return (
    // The wrapper scrolls a wide table sideways: it is named, and focusable when the table has no control.
    <div ref={ref} role="group" aria-label={label} onKeyDown={onKeyDown} className={className}>
      {children}
    </div>
  );
}
