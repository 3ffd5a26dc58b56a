import { z } from "zod";
import { isTerminal } from "../fsm/machine";
import { STATES } from "../fsm/table";
import { timeOutOfRange } from "../input";
import { PARAMS_FILTER_MAX, parseParamsFilter } from "./params-filter";

// PostgreSQL text cannot hold NUL: a value with one is malformed, and dropped like any other.
const text = (max: number) => z.string().trim().min(1).max(max).regex(/^[^\u0000]*$/).optional().catch(undefined);
// A time PostgreSQL and the driver keep as written (lib/input.ts): year 0000 was a 500.
const date = z.coerce
  .date()
  .refine((d) => timeOutOfRange(d) === null)
  .optional()
  .catch(undefined);

/**
 * The jobs list's filters, as they travel in the URL so a link can be shared.
 * Unknown or malformed values are dropped rather than failing the page.
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
  /** A job id, or an idempotency key. */
  q: text(200),
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
  /** `duration`: longest first (submit to finish, or so far), among the filter's newest SCAN_BUDGET jobs. */
  sort: z.enum(["created", "finished", "duration"]).default("created").catch("created"),
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

/** Parse filters from a URL's search params (or a page's `searchParams`). */
export function parseJobFilters(params: URLSearchParams | Record<string, string | string[] | undefined>): JobFilters {
  const entries =
    params instanceof URLSearchParams
      ? Object.fromEntries(params.entries())
      : Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const cleaned = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined && v !== ""));
  return JobFilters.parse(cleaned);
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
  const [at, id] = Buffer.from(s, "base64url").toString().split("|");
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
  const byFinish = f.sort === "finished" || f.finishedFrom !== undefined || f.finishedTo !== undefined;
  if (f.state && !isTerminal(f.state)) return byFinish ? null : "created";
  if (f.state || byFinish) return "finished";
  return f.errorClass && !(f.q || f.poison || f.worker || f.operation || f.params) ? "id" : "created";
}
