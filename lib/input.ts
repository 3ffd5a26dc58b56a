import { z } from "zod";

/*
 * What PostgreSQL can store, checked where input enters (the SDK's enqueue, the tenant API, the
 * console's actions and routes, better-auth's endpoints), so that bad input is a 400 that names
 * its field rather than a driver error and a 500. PostgreSQL text cannot hold U+0000, and neither
 * text sent as UTF-8 nor jsonb can hold a lone UTF-16 surrogate (JSON.stringify writes it as
 * `\ud800`, which jsonb refuses). Times are kept within a range both PostgreSQL and the driver
 * read back as they were written (postgres.js reads year 1 back as 2001, and year 0 does not exist).
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `s` cannot be stored as text, or null if it can. */
export function badText(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character (U+0000)";
  if (LONE_SURROGATE.test(s)) return "contains a lone UTF-16 surrogate (not a character)";
  return null;
}

export type BadText = { path: string; problem: string };

/** Nesting deeper than this is refused as such (JSON from a request cannot be a cycle, but it can be deep). */
const MAX_DEPTH = 64;

/**
 * The first string or object key in `value` (a parsed JSON body, an action's input, FormData or
 * URLSearchParams) that cannot be stored, with its path ("params.items.3.name"), or null.
 */
export function findBadText(value: unknown, path: readonly (string | number)[] = []): BadText | null {
  const at = (p: readonly (string | number)[]) => p.join(".") || "input";
  if (path.length > MAX_DEPTH) return { path: at(path), problem: `is nested more than ${MAX_DEPTH} levels deep` };
  if (typeof value === "string") {
    const problem = badText(value);
    return problem ? { path: at(path), problem } : null;
  }
  if (value === null || typeof value !== "object") return null;
  if (value instanceof Date) return null;
  const entries: Iterable<[string | number, unknown]> =
    value instanceof FormData || value instanceof URLSearchParams || value instanceof Map
      ? (value as Map<string, unknown>).entries()
      : Array.isArray(value)
        ? value.entries()
        : Object.entries(value);
  for (const [k, v] of entries) {
    if (typeof k === "string") {
      const problem = badText(k);
      // A key is named by the object that has it: its own text is what cannot be shown.
      if (problem) return { path: at(path), problem: `has a key that ${problem}` };
    }
    const found = findBadText(v, [...path, k]);
    if (found) return found;
  }
  return null;
}

/** "params.name contains a NUL character (U+0000)": for messages. */
export const describeBadText = (b: BadText) => `${b.path} ${b.problem}`;

/** A zod string that PostgreSQL can store. */
export const storableText = () => z.string().refine((s) => badText(s) === null, { error: (i) => badText(String(i.input)) ?? "not storable" });

/** The earliest and latest times any date input may name (filters, schedules): years 1970 to 9999. */
export const EARLIEST_TIME = new Date("1970-01-01T00:00:00Z");
export const LATEST_TIME = new Date("9999-12-31T23:59:59.999Z");
/** How far ahead a job may be scheduled (`notBefore`). */
export const MAX_SCHEDULE_AHEAD_DAYS = 366;

/** Why a time is outside [from, to], or null. */
export function timeOutOfRange(d: Date, from = EARLIEST_TIME, to = LATEST_TIME): string | null {
  if (Number.isNaN(d.getTime())) return "is not a time";
  if (d < from) return `is before ${from.toISOString()}`;
  if (d > to) return `is after ${to.toISOString()}`;
  return null;
}

/** The earliest `notBefore` (an earlier one means "now" as much as this one does). */
export const EARLIEST_NOT_BEFORE = new Date("2000-01-01T00:00:00Z");

/** Why `d` cannot be a job's `notBefore`, or null: from 2000 to MAX_SCHEDULE_AHEAD_DAYS after now. */
export function notBeforeProblem(d: Date, now = new Date()): string | null {
  const problem = timeOutOfRange(d, EARLIEST_NOT_BEFORE, new Date(now.getTime() + MAX_SCHEDULE_AHEAD_DAYS * 86_400_000));
  return problem && `${problem} (a job is scheduled at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead)`;
}
