import { presetRange, PRESET_LABELS, type Preset } from "../client/tz";
import { STATES, type JobState } from "../fsm/table";
import { idQueryOf } from "../uuid";
import type { JobFilters } from "./filters";
import type { TenantOption } from "./tenant-pick";

/** Words a support person adds that filter nothing: read past without a word. */
const FILLER = new Set([
  "a",
  "an",
  "the",
  "my",
  "our",
  "their",
  "from",
  "of",
  "for",
  "in",
  "on",
  "was",
  "were",
  "is",
  "are",
  "job",
  "jobs",
  "that",
  "which",
  "very",
  "too",
  "s",
  "and",
  "with",
  "show",
  "me",
  "all",
  "find",
]);
const SLOW = new Set(["slow", "slowest", "slower", "long", "longest", "longer"]);
const PRESET_WORDS: Record<string, Preset> = {
  yesterday: "yesterday",
  today: "today",
  "last-hour": "last-hour",
  "last-7-days": "last-7-days",
  "last-week": "last-7-days",
};

/** A word of the phrase and what it was read as ("tenant acme", "longest first"). */
export type ReadWord = { word: string; as: string };

/** A phrase as filters, with each word it understood and the words it did not. */
export type PhraseReading = { filters: Partial<JobFilters>; read: ReadWord[]; ignored: string[] };

/**
 * A support person's phrase in the lookup — "acme export yesterday slow", "slow exports for acme
 * last week" — as the list's filters: a tenant (by id or name, or a part only one has; staff only:
 * `tenants` is empty for a tenant member), a job type (or a part of one only one type has, plurals
 * too), a state, a date preset in the viewer's time zone, and "slow"/"longest" for longest first.
 * Words it cannot place are not dropped in silence: they are returned in `ignored`, and the page
 * echoes what it understood and names them. Null — the text is looked up as an id or an
 * idempotency key instead — unless it has two words or more and at least one of them filters
 * something (a sort alone filters nothing), and never when one of its words is a piece of a job id.
 */
export function parsePhrase(
  text: string,
  ctx: { tenants: readonly TenantOption[]; types: readonly string[]; now: number; timeZone: string },
): PhraseReading | null {
  const words = text
    .toLowerCase()
    .replace(/\blast\s+(hour|7\s+days|week)\b/g, (_, w: string) => `last-${w.replace(/\s+/g, "-")}`)
    .split(/[\s,]+/)
    .map((w) => w.replace(/^['"(]+|['")?.!]+$/g, "").replace(/'s$/, ""))
    .filter(Boolean);
  if (words.length < 2 || words.some((w) => idQueryOf(w) !== null)) return null;
  const filters: Partial<JobFilters> = {};
  const read: ReadWord[] = [];
  const ignored: string[] = [];
  for (const w of words) {
    if (FILLER.has(w)) continue;
    const meaning = readWord(w, filters, ctx);
    if (meaning) read.push({ word: w, as: meaning });
    else ignored.push(w);
  }
  const filtersSomething = Object.keys(filters).some((k) => k !== "sort");
  return filtersSomething ? { filters, read, ignored } : null;
}

/** What `w` sets in `out` (each filter once), in words; null when it sets nothing. */
function readWord(
  w: string,
  out: Partial<JobFilters>,
  ctx: { tenants: readonly TenantOption[]; types: readonly string[]; now: number; timeZone: string },
): string | null {
  if (SLOW.has(w)) {
    if (out.sort) return null;
    out.sort = "duration";
    return "longest first";
  }
  const preset = PRESET_WORDS[w];
  if (preset) {
    if (out.createdFrom) return null;
    const r = presetRange(preset, ctx.now, ctx.timeZone);
    out.createdFrom = r.from;
    out.createdTo = r.to;
    return `created ${PRESET_LABELS[preset].toLowerCase()}`;
  }
  if ((STATES as readonly string[]).includes(w)) {
    if (out.state) return null;
    out.state = w as JobState;
    return `state ${w}`;
  }
  // "exports", "reports": a plural names the type its singular names.
  for (const form of [w, ...(w.endsWith("es") ? [w.slice(0, -2)] : []), ...(w.endsWith("s") ? [w.slice(0, -1)] : [])]) {
    const tenant = uniqueMatch(
      form,
      ctx.tenants.map((t) => ({ key: t.id, names: [t.id, t.name, ...t.name.split(/\s+/)] })),
    );
    const type = uniqueMatch(
      form,
      ctx.types.map((t) => ({ key: t, names: [t, ...t.split(/[._-]/)] })),
    );
    if (tenant && !out.tenant && (!type || tenant.exact)) {
      out.tenant = tenant.key;
      return `tenant ${tenant.key}`;
    }
    if (type && !out.type) {
      out.type = type.key;
      return `type ${type.key}`;
    }
  }
  return null;
}

/** The one entry whose name is `w` or starts with it; null when none or several. */
function uniqueMatch(w: string, entries: readonly { key: string; names: string[] }[]): { key: string; exact: boolean } | null {
  if (w.length < 2) return null;
  const exact = entries.filter((e) => e.names.some((n) => n.toLowerCase() === w));
  if (exact.length === 1) return { key: exact[0]!.key, exact: true };
  if (exact.length > 1) return null;
  const partial = entries.filter((e) => e.names.some((n) => n.toLowerCase().startsWith(w)));
  return partial.length === 1 ? { key: partial[0]!.key, exact: false } : null;
}
