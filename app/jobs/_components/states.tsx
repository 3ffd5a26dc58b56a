import Link from "next/link";
import type { ReactNode } from "react";
import type { JobFilters } from "@/lib/jobs/filters";
import { idQueryOf } from "@/lib/uuid";
import { describeFilter } from "./describe";
import { jobsHref } from "./url";

const LINK = "text-sky-700 underline underline-offset-2";

/** The filters besides the lookup and the order: what else narrows the list. */
const narrowing = (f: JobFilters, isStaff: boolean) =>
  describeFilter({ ...f, q: undefined, phrase: undefined, after: undefined, before: undefined, ...(isStaff ? {} : { tenant: undefined }) });

/**
 * An empty page, in words that fit how it came about: a lookup that found nothing says what it
 * looked for (an id, a piece of one, a key), not "these filters" when no filter is set; a filter
 * that matches nothing names the filters.
 */
export function EmptyState({ filters, isFiltered, isStaff }: { filters: JobFilters; isFiltered: boolean; isStaff: boolean }) {
  // A tenant member's own tenant is no filter of theirs.
  const others = narrowing(filters, isStaff);
  const hasOthers = others !== "all jobs";
  let title: string;
  let detail: ReactNode;
  if (filters.q) {
    const q = idQueryOf(filters.q);
    const what =
      q?.kind === "id"
        ? `No job has the id ${q.id}`
        : q?.kind === "piece"
          ? `No job's id ${q.prefix && q.suffix ? "starts or ends" : q.prefix ? "starts" : "ends"} with ${filters.q}, and no job has it as its idempotency key`
          : `No job has the id or idempotency key “${filters.q}”`;
    title = hasOthers ? `${what} among ${others.replace(/^all jobs matching /, "the jobs matching ")}` : what;
    detail = hasOthers ? (
      <Link href={jobsHref({ q: filters.q })} prefetch={false} className={LINK}>
        Look for it among every job
      </Link>
    ) : (
      "Check the id or key; a job removed by retention, or another tenant's, is not found either."
    );
  } else if (isFiltered && (hasOthers || isStaff)) {
    title = hasOthers ? `No jobs match these filters: ${others.replace(/^all jobs matching /, "")}` : "No jobs match these filters";
    detail = (
      <Link href="/jobs" prefetch={false} className={LINK}>
        Clear every filter
      </Link>
    );
  } else {
    title = "No jobs yet";
    detail = "Jobs appear here as soon as they are submitted.";
  }
  return (
    <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-10 text-center">
      <p className="font-medium break-words">{title}</p>
      <p className="mt-1 text-sm text-neutral-600">{detail}</p>
    </div>
  );
}

export function LoadingRows() {
  return (
    <div role="status" aria-label="Loading jobs" className="space-y-2 rounded-lg border border-neutral-200 bg-white p-4">
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} aria-hidden="true" className="h-6 rounded bg-neutral-100 motion-safe:animate-pulse" />
      ))}
    </div>
  );
}
