import { z } from "zod";
import { isTerminal } from "../fsm/machine";
import { STATES } from "../fsm/table";
import { timeOutOfRange } from "../input";
import { PARAMS_FILTER_MAX, parseParamsFilter } from "./params-filter";

// PostgreSQL text cannot hold NUL: a value with one is malformed, and dropped like any other.
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\u0000]*$/)
    .optional()
    .catch(undefined);
// A time PostgreSQL and the driver keep as written (lib/input.ts): year 0000 was a 500.
const date = z.coerce
  .date()
  .refine((d) => timeOutOfRange(d) === null)
  .optional()
  .catch(undefined);

/** The orders the jobs list offers (see `sort` below). */
export const SORTS = ["created", "oldest", "finished", "duration"] as const;

/**
 * The jobs list's filters, as they travel in the URL so a link can be shared.
 * Unknown or malformed values are dropped rather than failing the page, and named
 * (`readJobFilters`): the page says which filters of a link it did not apply.
 */
export const JobFilters = z.object({
  state: z.enum(STATES).optional().catch(undefined),
  tenant: text(100),
  type: text(200),
  queue: text(100),
  errorClass: text(200),
  worker: text(200),
  /** "1": only poison suspects, jobs blamed for repeated worker crashes (lib/insight/windows.ts). */
  poison: z.literal("1").optional().catch(undefined),
  createdFrom: date,
  createdTo: date,
  finishedFrom: date,
  finishedTo: date,
  /** A job id, a link to one, a piece of either end of one (lib/uuid.ts), or an idempotency key. */
  q: text(200),
  /** The phrase the lookup read these filters from ("slow exports for acme last week"): echoed, never a filter. */
  phrase: text(200),
  /**
   * Search by params, as typed: `params.customer_id = 42` or `{"customer_id": 42}` (lib/jobs/params-filter.ts).
   * Kept as text so a malformed one reaches the page, which says what is wrong (`paramsProblem`; a
   * text too long for it is already refused there, up to four times its limit, then dropped).
   */
  params: z
    .string()
    .trim()
    .min(1)
    .max(PARAMS_FILTER_MAX * 4)
    .optional()
    .catch(undefined),
  /** The jobs a bulk operation or a replay touched (bulk_operation_items): its result links here. */
  operation: z.uuid().toLowerCase().optional().catch(undefined),
  /**
   * `created`: newest first; `oldest`: the same order reversed (a finished state's tab: oldest finished
   * first); `finished`: newest finished first; `duration`: longest first among the filter's newest
   * SCAN_BUDGET jobs — finished jobs only (submit to finish), or on a live state's tab the time so far.
   */
  sort: z.enum(SORTS).default("created").catch("created"),
  /** Only jobs that took (or have taken so far) longer than this: "90s", "30m", "2h", "1h30m". */
  longerThan: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(?=\d)(\d{1,4}d)?(\d{1,5}h)?(\d{1,6}m)?(\d{1,7}s)?$/)
    .optional()
    .catch(undefined),
  /** An opaque keyset cursor from a previous page. */
  after: text(200),
  before: text(200),
  limit: z.coerce.number().int().min(1).max(200).default(50).catch(50),
});
export type JobFilters = z.output<typeof JobFilters>;

/**
 * What is wrong with the filters' params search, in words, or null: the page shows it and the API
 * answers 400 with it, instead of listing as if no search were given.
 */
export function paramsProblem(f: Pick<Partial<JobFilters>, "params">): string | null {
  if (f.params === undefined) return null;
  const p = parseParamsFilter(f.params);
  return p.ok ? null : p.message;
}

/** "1h30m" → 5,400,000 ms; a value the filter's pattern accepts always parses. */
export function durationMs(s: string): number {
  const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
  let ms = 0;
  for (const [, n, u] of s.matchAll(/(\d+)([dhms])/g)) ms += Number(n) * unit[u!]!;
  return ms;
}

/** Parse filters from a URL's search params (or a page's `searchParams`); what cannot be used is dropped. */
export function parseJobFilters(params: URLSearchParams | Record<string, string | string[] | undefined>): JobFilters {
  return readJobFilters(params).filters;
}

/** A filter of a link that was not applied (`dropped`), or one that was but can match nothing. */
export type FilterProblem = { key: string; message: string; dropped: boolean };

type Search = URLSearchParams | Record<string, string | string[] | undefined>;

/** Names people put in a jobs link for a filter that has another name here. */
const ALIASES: Record<string, keyof JobFilters> = {
  from: "createdFrom",
  since: "createdFrom",
  after_date: "createdFrom",
  to: "createdTo",
  until: "createdTo",
  status: "state",
  tenantid: "tenant",
  tenant_id: "tenant",
  jobtype: "type",
  job_type: "type",
  kind: "type",
  error: "errorClass",
  error_class: "errorClass",
  errorclass: "errorClass",
  id: "q",
  jobid: "q",
  job_id: "q",
  search: "q",
  query: "q",
  key: "q",
  order: "sort",
  orderby: "sort",
  workerid: "worker",
  worker_id: "worker",
};

/** What a value each filter takes looks like, for the sentence that refuses one. */
const EXPECTED: Partial<Record<keyof JobFilters, string>> = {
  state: `one of ${STATES.join(", ")}`,
  createdFrom: "a date and time, such as 2026-11-30T09:00:00Z",
  createdTo: "a date and time, such as 2026-11-30T09:00:00Z",
  finishedFrom: "a date and time, such as 2026-11-30T09:00:00Z",
  finishedTo: "a date and time, such as 2026-11-30T09:00:00Z",
  sort: SORTS.join(", "),
  longerThan: "a duration such as 90s, 30m, 2h or 1h30m",
  limit: "a whole number of jobs from 1 to 200",
  poison: "1",
  operation: "an operation's id",
  params: `at most ${PARAMS_FILTER_MAX * 4} characters`,
};

/**
 * Filters from a URL with what could not be used: each value that does not parse is dropped and
 * named (as the audit page names what it ignored), each unknown parameter named with the filter it
 * probably meant, and a date range that ends before it starts said (it is kept: nothing matches).
 */
export function readJobFilters(params: Search): { filters: JobFilters; problems: FilterProblem[] } {
  const entries =
    params instanceof URLSearchParams
      ? Object.fromEntries(params.entries())
      : Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const cleaned = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined && v !== "")) as Record<string, string>;
  const problems: FilterProblem[] = [];
  const shape = JobFilters.shape as Record<string, z.ZodType>;
  const known = Object.keys(shape);
  for (const [key, value] of Object.entries(cleaned)) {
    const shown = `“${value.length > 40 ? `${value.slice(0, 40)}…` : value}”`;
    if (!Object.hasOwn(shape, key)) {
      const meant = ALIASES[key.toLowerCase()] ?? known.find((k) => k.toLowerCase() === key.toLowerCase());
      problems.push({ key, dropped: true, message: `${key.slice(0, 40)} is not a filter of this list${meant ? ` (did you mean ${meant}?)` : ""}` });
      continue;
    }
    const field = shape[key]!;
    const strict = field instanceof z.ZodCatch ? (field.unwrap() as z.ZodType) : field;
    const ok = strict.safeParse(value).success && !((key === "after" || key === "before") && decodeCursor(value) === null);
    if (!ok) {
      const expected = EXPECTED[key as keyof JobFilters];
      const what =
        key === "after" || key === "before"
          ? "the page cursor is not valid: showing the first page"
          : `${key} ${shown} was not applied${expected ? `: ${expected}` : ""}`;
      problems.push({ key, dropped: true, message: what });
    }
  }
  const filters = JobFilters.parse(cleaned);
  // A malformed cursor is no cursor: the first page, as the problem says.
  if (filters.after !== undefined && decodeCursor(filters.after) === null) filters.after = undefined;
  if (filters.before !== undefined && decodeCursor(filters.before) === null) filters.before = undefined;
  for (const [from, to, what] of [
    ["createdFrom", "createdTo", "created"],
    ["finishedFrom", "finishedTo", "finished"],
  ] as const) {
    const a = filters[from];
    const b = filters[to];
    if (a && b && a.getTime() >= b.getTime())
      problems.push({ key: from, dropped: false, message: `${from} is not before ${to}: no job was ${what} in that range` });
  }
  return { filters, problems };
}

/** The inverse of `parseJobFilters`: only what differs from the defaults, cursor excluded unless given. */
export function filtersToSearch(f: Partial<JobFilters>): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === null || v === "") continue;
    if (k === "sort" && v === "created") continue;
    if (k === "limit" && v === 50) continue;
    out.set(k, v instanceof Date ? v.toISOString() : String(v));
  }
  return out;
}

export type Cursor = { at: Date; id: string };

/**
 * `at` may be given exactly, as an ISO string with PostgreSQL's microseconds:
 * a Date keeps only milliseconds, and a keyset on a truncated time repeats or
 * skips rows created within the same millisecond.
 */
export function encodeCursor(c: { at: Date | string; id: string }): string {
  return Buffer.from(`${typeof c.at === "string" ? c.at : c.at.toISOString()}|${c.id}`).toString("base64url");
}

const CURSOR_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/;

/** `exact` is the cursor's time as given (compare with `${exact}::text::timestamptz`: postgres.js would send a timestamptz parameter through a Date, dropping the microseconds again); `at` the same to the millisecond. */
export function decodeCursor(s: string | undefined): (Cursor & { exact: string }) | null {
  if (!s) return null;
  // atob, not Buffer: the browser's bundle reads the filters (and their cursors) too.
  let text: string;
  try {
    text = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const [at, id] = text.split("|");
  const d = new Date(at ?? "");
  if (!id || !CURSOR_TIME.test(at ?? "") || timeOutOfRange(d) !== null || !/^[0-9a-f-]{36}$/i.test(id)) return null;
  return { at: d, id, exact: at! };
}

/** The order a page of the jobs list is in (lib/jobs/list-source.ts walks the index of that order). */
export type Order = "created" | "finished" | "id";

/**
 * The order a page under `f` is listed in; null: no job can match (a live state has no finished
 * time). A finished state's tab is always newest finished first, whatever `sort` asks; an error
 * class alone walks its attempts by job id, the order of creation (UUIDv7).
 */
export function orderOf(f: Omit<Partial<JobFilters>, "after" | "before" | "limit">): Order | null {
  // `oldest` is the same walk the other way (isOldestFirst).
  const byFinish = f.sort === "finished" || f.finishedFrom !== undefined || f.finishedTo !== undefined;
  if (f.state && !isTerminal(f.state)) return byFinish ? null : "created";
  if (f.state || byFinish) return "finished";
  return f.errorClass && !(f.q || f.poison || f.worker || f.operation || f.params) ? "id" : "created";
}

/** The list runs oldest first: its order (orderOf) walked from the other end. */
export const isOldestFirst = (f: Pick<Partial<JobFilters>, "sort">): boolean => f.sort === "oldest";
