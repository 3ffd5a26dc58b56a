import type { ReactNode } from "react";

/** A titled card, labelled by its heading (the look of the job page's sections). */
export function Card({
  title,
  id,
  aside,
  children,
  className,
}: {
  title: string;
  id: string;
  aside?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className={`rounded-lg border border-neutral-200 bg-white p-5 shadow-xs${className ? ` ${className}` : ""}`}
    >
      <div className="mb-4 flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id={`${id}-heading`} className="text-base font-semibold tracking-tight">
          {title}
        </h2>
        {aside && <div className="text-sm text-neutral-600">{aside}</div>}
      </div>
      {children}
    </section>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="rounded-md border border-dashed border-neutral-300 px-4 py-6 text-center text-sm text-neutral-600">{children}</p>;
}
