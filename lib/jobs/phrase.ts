import { presetRange, type Preset } from "../client/tz";
import { STATES, type JobState } from "../fsm/table";
import type { JobFilters } from "./filters";
import type { TenantOption } from "./tenant-pick";

/** Words a support person adds that filter nothing. */
const FILLER = new Set(["a", "an", "the", "my", "our", "their", "from", "of", "for", "in", "was", "is", "job", "jobs", "that", "which", "very", "too", "s"]);
const SLOW = new Set(["slow", "slowest", "slower", "long", "longest", "longer"]);
const PRESET_WORDS: Record<string, Preset> = { yesterday: "yesterday", today: "today", "last-hour": "last-hour", "last-7-days": "last-7-days", "last-week": "last-7-days" };

/**
 * A support person's phrase in the lookup — "acme export yesterday slow" — as the list's filters:
 * a tenant (by id or name, or a part only one has; staff only: `tenants` is empty for a tenant
 * member), a job type (or a part of one only one type has), a state, a date preset in the viewer's
 * time zone, and "slow"/"longest" for longest first. Null unless every word is understood and at
 * least two filter something: anything else is looked up as an id or an idempotency key.
 */
export function parsePhrase(
  text: string,
  ctx: { tenants: readonly TenantOption[]; types: readonly string[]; now: number; timeZone: string },
): Partial<JobFilters> | null {
  const words = text
    .toLowerCase()
    .replace(/\blast\s+(hour|7\s+days|week)\b/g, (_, w: string) => `last-${w.replace(/\s+/g, "-")}`)
    .split(/[\s,]+/)
    .map((w) => w.replace(/^'+|'+$/g, "").replace(/'s$/, ""))
    .filter((w) => w && !FILLER.has(w));
  if (words.length < 2) return null;
  const out: Partial<JobFilters> = {};
  for (const w of words) {
    if (SLOW.has(w)) {
      out.sort = "duration";
      continue;
    }
    const preset = PRESET_WORDS[w];
    if (preset) {
      const r = presetRange(preset, ctx.now, ctx.timeZone);
      out.createdFrom = r.from;
      out.createdTo = r.to;
      continue;
    }
    if ((STATES as readonly string[]).includes(w)) {
      out.state = w as JobState;
      continue;
    }
    const tenant = uniqueMatch(
      w,
      ctx.tenants.map((t) => ({ key: t.id, names: [t.id, t.name] })),
    );
    const type = uniqueMatch(
      w,
      ctx.types.map((t) => ({ key: t, names: [t, ...t.split(/[._-]/)] })),
    );
    if (tenant && !out.tenant && (!type || tenant.exact)) out.tenant = tenant.key;
    else if (type && !out.type) out.type = type.key;
    else return null;
  }
  return out;
}

/** The one entry whose name is `w` or starts with it; null when none or several. */
function uniqueMatch(w: string, entries: readonly { key: string; names: string[] }[]): { key: string; exact: boolean } | null {
  const exact = entries.filter((e) => e.names.some((n) => n.toLowerCase() === w));
  if (exact.length === 1) return { key: exact[0]!.key, exact: true };
  if (exact.length > 1) return null;
  const partial = entries.filter((e) => e.names.some((n) => n.toLowerCase().startsWith(w)));
  return partial.length === 1 ? { key: partial[0]!.key, exact: false } : null;
}
