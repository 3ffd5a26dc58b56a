"use client";

import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { FilterSelect, TextField } from "@/components/form-field";
import { TimeZoneSelect, useTimeZone } from "@/components/time-zone";
import { fromWallInput, PRESET_LABELS, PRESETS, presetRange, toWallInput, type Preset } from "@/lib/client/tz";
import { resolveTenant, type TenantOption } from "@/lib/jobs/tenant-pick";
import { SORTS, type JobFilters } from "@/lib/jobs/filters";
import { parseParamsFilter, PARAMS_FILTER_MAX } from "@/lib/jobs/params-filter";
import { Field, INPUT, PRIMARY, SECONDARY } from "@/components/fields";
import { jobsHref, refilteredHref } from "./url";

const TEXT_FIELDS = [
  ["queue", "Queue", "default"],
  ["errorClass", "Error class", "UpstreamTimeout"],
  ["worker", "Worker", "worker id"],
] as const;
/** Fields that mean nothing to a tenant member, whose view leaves the machinery out: staff only. */
const STAFF_ONLY = new Set<string>(["worker"]);

const DATE_FIELDS = [
  ["createdFrom", "Created from"],
  ["createdTo", "Created before"],
  ["finishedFrom", "Finished from"],
  ["finishedTo", "Finished before"],
] as const;

const text = (v: FormDataEntryValue | null) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/**
 * The filters, as a form whose submit puts them in the URL (and starts again from the newest page).
 * Dates are entered in the viewer's time zone (their choice sticks, in a cookie); the URL keeps
 * UTC instants. A date preset applies the form at once, with that range.
 */
export function FilterForm({
  filters,
  isStaff = true,
  tenants = [],
  types = [],
  onCleanUp,
}: {
  filters: JobFilters;
  isStaff?: boolean;
  tenants?: readonly TenantOption[];
  types?: readonly string[];
  /** Operators: delete the finished jobs of these filters that finished long ago (a dry run first). */
  onCleanUp?: () => void;
}) {
  const router = useRouter();
  const form = useRef<HTMLFormElement>(null);
  const tz = useTimeZone();
  // What is wrong with the params search typed, checked before it goes into the URL (the server checks it again).
  const [paramsError, setParamsError] = useState<string | null>(null);

  function apply(range?: { from: Date; to: Date | undefined }) {
    if (!form.current) return;
    const data = new FormData(form.current);
    const params = text(data.get("params"));
    const parsed = params === undefined ? null : parseParamsFilter(params);
    if (parsed && !parsed.ok) {
      setParamsError(parsed.message);
      form.current.querySelector<HTMLInputElement>("#f-params")?.focus();
      return;
    }
    setParamsError(null);
    const sortValue = data.get("sort");
    const sort = SORTS.find((x) => x === sortValue) ?? "created";
    const dates = Object.fromEntries(DATE_FIELDS.map(([name]) => [name, fromWallInput(String(data.get(name) ?? ""), tz)]));
    router.push(
      refilteredHref(filters, {
        ...Object.fromEntries(TEXT_FIELDS.filter(([n]) => isStaff || !STAFF_ONLY.has(n)).map(([name]) => [name, text(data.get(name))])),
        ...dates,
        ...(range ? { createdFrom: range.from, createdTo: range.to } : {}),
        // A tenant member's tenant is theirs: the server confines it whatever the URL says.
        ...(isStaff ? { tenant: resolveTenant(text(data.get("tenant")), tenants) } : {}),
        type: text(data.get("type")),
        poison: isStaff && data.get("poison") === "1" ? "1" : undefined,
        longerThan: text(data.get("longerThan"))?.replace(/\s+/g, "").toLowerCase(),
        params,
        sort,
      }),
    );
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    apply();
  }

  /** `now`: the click's moment (an event handler, not render). */
  function preset(p: Preset, now: number) {
    apply(presetRange(p, now, tz));
  }

  const active =
    [
      ...TEXT_FIELDS.map(([n]) => filters[n]),
      ...DATE_FIELDS.map(([n]) => filters[n]),
      filters.type,
      filters.poison,
      filters.longerThan,
      filters.params,
      isStaff && filters.tenant,
    ].filter(Boolean).length + (filters.sort !== "created" ? 1 : 0);
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
      <form ref={form} role="search" aria-label="Filter jobs" onSubmit={onSubmit} className="mt-3">
        <div className="mb-3 flex flex-wrap items-center gap-2" role="group" aria-label="Created">
          <span className="text-xs font-medium text-neutral-600">Created:</span>
          {PRESETS.map((p) => (
            <button key={p} type="button" className={SECONDARY} onClick={(e) => preset(p, performance.timeOrigin + e.timeStamp)}>
              {PRESET_LABELS[p]}
            </button>
          ))}
          <TimeZoneSelect
            id="f-tz"
            className={`${INPUT} w-56`}
            labelClassName="whitespace-nowrap text-xs font-medium text-neutral-600"
            wrapperClassName="ml-auto flex items-center gap-2"
          />
        </div>
        <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
          <FilterSelect id="f-type" label="Type" name="type" defaultValue={filters.type ?? ""} any="Any type" options={types} />
          {isStaff && (
            <TextField
              id="f-tenant"
              label="Tenant"
              hint="id or name"
              name="tenant"
              suggestions={tenants.map((t) => ({ value: t.id, label: t.name }))}
              defaultValue={filters.tenant ?? ""}
              placeholder="acme, or Acme Corp"
              maxLength={100}
              autoComplete="off"
            />
          )}
          {TEXT_FIELDS.filter(([name]) => isStaff || !STAFF_ONLY.has(name)).map(([name, label, placeholder]) => (
            <TextField
              key={name}
              id={`f-${name}`}
              label={label}
              name={name}
              defaultValue={filters[name] ?? ""}
              placeholder={placeholder}
              maxLength={200}
            />
          ))}
          {DATE_FIELDS.map(([name, label]) => (
            // Keyed by the zone as well: another zone shows the dates again, in it.
            <TextField
              key={`${name} ${tz}`}
              id={`f-${name}`}
              label={label}
              hint={tz}
              name={name}
              type="datetime-local"
              defaultValue={filters[name] ? toWallInput(filters[name], tz) : ""}
            />
          ))}
          <TextField
            id="f-longerThan"
            label="Took longer than"
            hint="e.g. 30m, 2h"
            name="longerThan"
            defaultValue={filters.longerThan ?? ""}
            placeholder="30m"
            maxLength={20}
            pattern="\s*(\d+[dhmsDHMS]\s*)+"
            title="A duration such as 90s, 30m, 2h or 1h30m"
          />
          <ParamsSearch defaultValue={filters.params ?? ""} problem={paramsError} onEdit={() => setParamsError(null)} />
          <Field id="f-sort" label="Sort by">
            <select id="f-sort" name="sort" defaultValue={filters.sort} className={INPUT}>
              <option value="created">Newest first</option>
              <option value="oldest">Oldest first</option>
              <option value="finished">Newest finished (finished jobs only)</option>
              <option value="duration">Longest first (finished jobs; a live tab: time so far)</option>
            </select>
          </Field>
        </div>
        <div className="mt-3 flex items-center justify-end gap-2">
          {isStaff ? (
            <label className="mr-auto flex items-center gap-2 text-sm text-neutral-700">
              <input
                type="checkbox"
                name="poison"
                value="1"
                defaultChecked={filters.poison === "1"}
                className="size-4 rounded border-neutral-300 accent-neutral-900"
              />
              Poison suspects only <span className="text-xs text-neutral-600">(blamed for two or more worker crashes)</span>
            </label>
          ) : (
            <span className="mr-auto" />
          )}
          {onCleanUp && (
            <button type="button" className={SECONDARY} onClick={onCleanUp}>
              Clean up finished jobs…
            </button>
          )}
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

/** The params search (lib/jobs/params-filter.ts), and what is wrong with what was typed until it is edited. */
function ParamsSearch({ defaultValue, problem, onEdit }: { defaultValue: string; problem: string | null; onEdit: () => void }) {
  return (
    <div className="col-span-2 md:col-span-3">
      <TextField
        id="f-params"
        label="Params"
        hint='e.g. customer_id = 42, or {"customer_id": 42}'
        name="params"
        defaultValue={defaultValue}
        placeholder="params.customer_id = 42"
        maxLength={PARAMS_FILTER_MAX}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? "f-params-error" : undefined}
        onChange={onEdit}
        className={`${INPUT} font-mono ${problem ? "border-red-600" : ""}`}
      />
      {problem && (
        <p id="f-params-error" role="alert" className="mt-1 text-xs text-red-800">
          {problem}
        </p>
      )}
    </div>
  );
}
