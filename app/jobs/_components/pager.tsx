import Link from "next/link";
import { orderOf, type JobFilters } from "@/lib/jobs/filters";
import { SECONDARY } from "@/components/fields";
import { jobsHref } from "./url";

/**
 * How a page is ordered: by duration when asked, else in the order its list walks (a finished
 * state's tab is newest finished first even when the URL asks for created order).
 */
function orderLabel(f: JobFilters): string {
  if (f.sort === "duration") return "longest first (of the filter's newest jobs)";
  return orderOf(f) === "finished" ? "newest finished first" : "newest created first";
}

/** Keyset paging: Newer and Older follow the page's cursors; there are no page numbers to jump to. */
export function Pager({ filters, prev, next, shown }: { filters: JobFilters; prev: string | null; next: string | null; shown: number }) {
  const base = { ...filters, after: undefined, before: undefined };
  const isFirst = !filters.after && !filters.before;
  return (
    <nav aria-label="Pages" className="flex items-center justify-between gap-3 text-sm text-neutral-600">
      <p className="tabular-nums">
        {shown} {shown === 1 ? "job" : "jobs"} on this page, {orderLabel(filters)}
      </p>
      <div className="flex items-center gap-2">
        {!isFirst && (
          <Link href={jobsHref(base)} prefetch={false} className={SECONDARY}>
            Newest
          </Link>
        )}
        <PageLink href={prev ? jobsHref({ ...base, before: prev }) : null} label="Newer" rel="prev" />
        <PageLink href={next ? jobsHref({ ...base, after: next }) : null} label="Older" rel="next" />
      </div>
    </nav>
  );
}

function PageLink({ href, label, rel }: { href: string | null; label: string; rel: "prev" | "next" }) {
  if (!href) {
    return (
      <span role="link" aria-disabled="true" className={`${SECONDARY} cursor-not-allowed opacity-50`}>
        {rel === "prev" ? "← " : ""}
        {label}
        {rel === "next" ? " →" : ""}
      </span>
    );
  }
  return (
    <Link href={href} rel={rel} prefetch={false} className={SECONDARY}>
      {rel === "prev" ? "← " : ""}
      {label}
      {rel === "next" ? " →" : ""}
    </Link>
  );
}
