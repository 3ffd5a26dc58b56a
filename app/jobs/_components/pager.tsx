import Link from "next/link";
import { isOldestFirst, orderOf, type JobFilters } from "@/lib/jobs/filters";
import { isTerminal } from "@/lib/fsm/machine";
import { SECONDARY } from "@/components/fields";
import { jobsHref } from "./url";

/**
 * How a page is ordered: by duration when asked, else in the order its list walks (a finished
 * state's tab is by finish time even when the URL asks for created order), newest or oldest first.
 */
function orderLabel(f: JobFilters): string {
  if (f.sort === "duration") {
    return f.state && !isTerminal(f.state)
      ? `longest ${f.state} first, by time so far (of the filter's newest jobs)`
      : "longest first: finished jobs only, submit to finish (of the filter's newest jobs)";
  }
  const by = orderOf(f) === "finished" ? "finished" : "created";
  return isOldestFirst(f) ? `oldest ${by} first` : `newest ${by} first`;
}

/** Keyset paging: the two buttons follow the page's cursors; there are no page numbers to jump to. */
export function Pager({ filters, prev, next, shown }: { filters: JobFilters; prev: string | null; next: string | null; shown: number }) {
  const base = { ...filters, after: undefined, before: undefined };
  const isFirst = !filters.after && !filters.before;
  const oldest = isOldestFirst(filters);
  return (
    <nav aria-label="Pages" className="flex items-center justify-between gap-3 text-sm text-neutral-600">
      <p className="tabular-nums">
        {shown} {shown === 1 ? "job" : "jobs"} on this page, {orderLabel(filters)}
      </p>
      <div className="flex items-center gap-2">
        {!isFirst && (
          <Link href={jobsHref(base)} prefetch={false} className={SECONDARY}>
            {oldest ? "Oldest" : "Newest"}
          </Link>
        )}
        <PageLink href={prev ? jobsHref({ ...base, before: prev }) : null} label={oldest ? "Older" : "Newer"} rel="prev" />
        <PageLink href={next ? jobsHref({ ...base, after: next }) : null} label={oldest ? "Newer" : "Older"} rel="next" />
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
