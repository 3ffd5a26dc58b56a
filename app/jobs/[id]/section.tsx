import type { ReactNode } from "react";

/** A titled card, labelled by its heading. */
export function Section({
  title,
  id,
  aside,
  children,
}: {
  title: string;
  id: string;
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-lg border border-neutral-200 bg-white p-5 shadow-xs">
      <div className="mb-4 flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id={`${id}-heading`} className="text-base font-semibold tracking-tight">
          {title}
        </h2>
        {aside && <div className="text-sm text-neutral-500">{aside}</div>}
      </div>
      {children}
    </section>
  );
}
