"use client";

import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import type { JobFilters } from "@/lib/jobs/filters";
import { INPUT, SECONDARY } from "./fields";
import { refilteredHref } from "./url";

/** Find one job by id or idempotency key: a filter like the others, so the result is a shareable link. */
export function Lookup({ filters }: { filters: JobFilters }) {
  const router = useRouter();

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const q = new FormData(e.currentTarget).get("q");
    const value = typeof q === "string" && q.trim() ? q.trim() : undefined;
    // A lookup searches every state: a job found by id should not hide behind the current tab.
    router.push(refilteredHref(filters, { q: value, state: value ? undefined : filters.state }));
  }

  return (
    <form role="search" aria-label="Find a job" onSubmit={onSubmit} className="flex items-end gap-2">
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <label htmlFor="f-q" className="text-xs font-medium text-neutral-600">
          Job id or idempotency key
        </label>
        <input
          id="f-q"
          name="q"
          type="search"
          defaultValue={filters.q ?? ""}
          placeholder="a job id, or the idempotency key it was submitted with"
          maxLength={200}
          spellCheck={false}
          className={`${INPUT} font-mono`}
        />
      </div>
      <button type="submit" className={SECONDARY}>
        Find
      </button>
    </form>
  );
}
