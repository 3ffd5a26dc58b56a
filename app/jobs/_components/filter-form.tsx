"use client";

import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { JOB_TYPES } from "@/lib/jobs/job-types";
import type { JobFilters } from "@/lib/jobs/filters";
import { Field, INPUT, PRIMARY, SECONDARY } from "./fields";
import { jobsHref, refilteredHref } from "./url";

const TEXT_FIELDS = [
  ["tenant", "Tenant", "acme"],
  ["queue", "Queue", "default"],
  ["errorClass", "Error class", "UpstreamTimeout"],
  ["worker", "Worker", "worker id"],
] as const;

const DATE_FIELDS = [
  ["createdFrom", "Created from"],
  ["createdTo", "Created before"],
  ["finishedFrom", "Finished from"],
  ["finishedTo", "Finished before"],
] as const;

// Times are entered and shown in UTC, so a shared link means the same instant to everyone.
const toInput = (d: Date | undefined) => (d ? d.toISOString().slice(0, 16) : "");
const fromInput = (v: FormDataEntryValue | null) => {
  if (typeof v !== "string" || !v) return undefined;
  const d = new Date(`${v}:00Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
};
const text = (v: FormDataEntryValue | null) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** The filters, as a form whose submit puts them in the URL (and starts again from the newest page). */
export function FilterForm({ filters }: { filters: JobFilters }) {
  const router = useRouter();

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const sort = form.get("sort") === "finished" ? "finished" : "created";
    router.push(
      refilteredHref(filters, {
        ...Object.fromEntries(TEXT_FIELDS.map(([name]) => [name, text(form.get(name))])),
        ...Object.fromEntries(DATE_FIELDS.map(([name]) => [name, fromInput(form.get(name))])),
        type: text(form.get("type")),
        poison: form.get("poison") === "1" ? "1" : undefined,
        sort,
      }),
    );
  }

  const active =
    [...TEXT_FIELDS.map(([n]) => filters[n]), ...DATE_FIELDS.map(([n]) => filters[n]), filters.type, filters.poison].filter(Boolean).length +
    (filters.sort === "finished" ? 1 : 0);
  // Collapsed unless a filter is in use: the first job is a few Tab presses from the top, not sixty.
  return (
    <details open={active > 0} className="group border-t border-neutral-100 pt-3">
      <summary className="inline-flex cursor-pointer items-center gap-1.5 rounded text-sm font-medium text-neutral-700 select-none hover:text-neutral-900">
        <svg aria-hidden="true" viewBox="0 0 16 16" className="size-4 transition-transform group-open:rotate-90" fill="currentColor">
          <path d="M6 3.5 10.5 8 6 12.5z" />
        </svg>
        Filters
        {active > 0 && <span className="rounded-full bg-neutral-900 px-1.5 text-xs leading-5 text-white tabular-nums">{active}</span>}
      </summary>
      <form role="search" aria-label="Filter jobs" onSubmit={onSubmit} className="mt-3">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
          <Field id="f-type" label="Type">
            <select id="f-type" name="type" defaultValue={filters.type ?? ""} className={INPUT}>
              <option value="">Any type</option>
              {Object.keys(JOB_TYPES).map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
          {TEXT_FIELDS.map(([name, label, placeholder]) => (
            <Field key={name} id={`f-${name}`} label={label}>
              <input id={`f-${name}`} name={name} defaultValue={filters[name] ?? ""} placeholder={placeholder} maxLength={200} className={INPUT} />
            </Field>
          ))}
          {DATE_FIELDS.map(([name, label]) => (
            <Field key={name} id={`f-${name}`} label={label} hint="UTC">
              <input id={`f-${name}`} name={name} type="datetime-local" defaultValue={toInput(filters[name])} className={INPUT} />
            </Field>
          ))}
          <Field id="f-sort" label="Sort by">
            <select id="f-sort" name="sort" defaultValue={filters.sort} className={INPUT}>
              <option value="created">Newest created</option>
              <option value="finished">Newest finished (finished jobs only)</option>
            </select>
          </Field>
        </div>
        <div className="mt-3 flex items-center justify-end gap-2">
          <label className="mr-auto flex items-center gap-2 text-sm text-neutral-700">
            <input
              type="checkbox"
              name="poison"
              value="1"
              defaultChecked={filters.poison === "1"}
              className="size-4 rounded border-neutral-300 accent-neutral-900"
            />
            Poison suspects only <span className="text-xs text-neutral-600">(leases lost twice or more)</span>
          </label>
          <button type="button" className={SECONDARY} onClick={() => router.push(jobsHref({ state: filters.state }))}>
            Clear filters
          </button>
          <button type="submit" className={PRIMARY}>
            Apply filters
          </button>
        </div>
      </form>
    </details>
  );
}
