"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, type FormEvent, type RefObject } from "react";
import type { JobFilters } from "@/lib/jobs/filters";
import { INPUT, SECONDARY } from "@/components/fields";
import { useTimeZone } from "@/components/time-zone";
import { parsePhrase } from "@/lib/jobs/phrase";
import type { TenantOption } from "@/lib/jobs/tenant-pick";
import { idQueryOf } from "@/lib/uuid";
import { jobsHref, refilteredHref } from "./url";

/**
 * Find one job by what people paste — its URL, its id, a piece of either end of its id (6 hex
 * digits or more; the list prints the last 8), or its idempotency key: a filter like the others, so
 * the result is a shareable link, and one match opens the job (app/jobs/page.tsx). A phrase such as
 * "slow exports for acme last week" becomes the filters it names (lib/jobs/phrase.ts); the page
 * echoes how it was read and names the words it ignored.
 */
export function Lookup({ filters, tenants = [], types = [] }: { filters: JobFilters; tenants?: readonly TenantOption[]; types?: readonly string[] }) {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const timeZone = useTimeZone();
  useSlashToFocus(input);

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const q = new FormData(e.currentTarget).get("q");
    const value = typeof q === "string" && q.trim() ? q.trim() : undefined;
    // `params.customer_id = 42` or `{"customer_id": 42}`: a search by params (the list names a malformed one).
    if (value && (/^params\./i.test(value) || value.startsWith("{"))) {
      router.push(refilteredHref(filters, { params: value, q: undefined, state: undefined }));
      return;
    }
    // A pasted link or id is looked up as the id it names, in canonical form.
    const id = value ? idQueryOf(value) : null;
    const phrase = value && !id ? parsePhrase(value, { tenants, types: [...types], now: performance.timeOrigin + e.timeStamp, timeZone }) : null;
    if (phrase && value) {
      router.push(jobsHref({ ...phrase.filters, phrase: value }));
      return;
    }
    const lookup = id?.kind === "id" ? id.id : id?.kind === "piece" ? value?.toLowerCase() : value;
    // A lookup searches every state: a job found by id should not hide behind the current tab.
    router.push(refilteredHref(filters, { q: lookup, state: value ? undefined : filters.state }));
  }

  return (
    <form role="search" aria-label="Find a job" onSubmit={onSubmit} className="flex items-end gap-2">
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <label htmlFor="f-q" className="text-xs font-medium text-neutral-600">
          Job link, id, key or phrase
          <span className="ml-2 font-normal text-neutral-600">
            press <kbd className="rounded border border-neutral-300 px-1 font-mono">/</kbd> to jump here
          </span>
        </label>
        <input
          ref={input}
          id="f-q"
          name="q"
          type="search"
          defaultValue={filters.q ?? filters.phrase ?? ""}
          placeholder="a job link or id (6 characters of either end will do), an idempotency key, params.customer_id = 42, or a phrase: slow exports for acme last week"
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

/** "/" anywhere on the page (outside a text field) puts the cursor in the lookup, as in GitHub and most consoles. */
function useSlashToFocus(input: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (e.key !== "/" || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [input]);
}
