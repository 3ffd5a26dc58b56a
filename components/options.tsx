import type { ReactNode } from "react";

/**
 * The `<option>`s of a select, one per item: its value is `value(item)` (the item itself for a list
 * of strings), its text `label(item)` (the value by default).
 */
export function Options<T>({ of, value = String, label = value }: { of: readonly T[]; value?: (item: T) => string; label?: (item: T) => ReactNode }) {
  return of.map((item) => (
    <option key={value(item)} value={value(item)}>
      {label(item)}
    </option>
  ));
}
