"use client";

/**
 * A small set of mutually exclusive choices that filter what a page shows
 * (a window, a status): buttons in a group, the current one pressed.
 */
export function Segmented<V extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: V;
  options: readonly { value: V; label: string }[];
  onChange: (value: V) => void;
}) {
  return (
    <div role="group" aria-label={label} className="inline-flex flex-wrap rounded-md border border-neutral-300 bg-white p-0.5 text-sm shadow-xs">
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={o.value === value}
          onClick={() => onChange(o.value)}
          className={`rounded px-3 py-1 font-medium ${o.value === value ? "bg-neutral-900 text-white" : "text-neutral-700 hover:bg-neutral-100"}`}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
