/** One horizontal bar split into labelled parts, proportional to their values; the numbers are beside it in a list. */
export function StackedBar({ parts, label }: { parts: { key: string; value: number; color: string; title: string }[]; label: string }) {
  const total = parts.reduce((s, p) => s + p.value, 0);
  return (
    <div role="img" aria-label={label} className="flex h-6 w-full gap-px overflow-hidden rounded-md bg-neutral-100">
      {total > 0 &&
        parts
          .filter((p) => p.value > 0)
          .map((p) => (
            <div key={p.key} title={p.title} data-part={p.key} style={{ width: `${(p.value / total) * 100}%`, background: p.color, minWidth: 2 }} />
          ))}
    </div>
  );
}
