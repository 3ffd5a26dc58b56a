import type { AuditFilters, AuditOutcome } from "@/lib/audit/audit";
import { AUDIT_OUTCOMES } from "@/lib/db/schema-identity";
import type { SearchParams } from "@/lib/frame/page";

/** The outcomes the audit log's CHECK constraint allows, in its order: the one list. */
export const OUTCOMES: readonly AuditOutcome[] = AUDIT_OUTCOMES;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() || undefined;

/** A time from the URL: `2026-11-29T10:00` (UTC, as the form's datetime inputs send it) or a full ISO time. */
function parseTime(v: string | undefined): Date | null | undefined {
  if (!v) return undefined;
  const d = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v) ? `${v}:00Z` : v);
  return Number.isNaN(d.getTime()) || v.length > 40 ? null : d;
}

/** The page's filters from the URL. Values that cannot be used are dropped and named in `ignored`. */
export function parseAuditSearch(sp: SearchParams): { filters: AuditFilters; ignored: string[] } {
  const ignored: string[] = [];
  const outcome = one(sp.outcome);
  const since = parseTime(one(sp.from));
  const until = parseTime(one(sp.to));
  const beforeRaw = one(sp.before);
  const before = beforeRaw && /^\d{1,18}$/.test(beforeRaw) && Number(beforeRaw) > 0 ? Number(beforeRaw) : undefined;
  if (outcome && !(OUTCOMES as readonly string[]).includes(outcome)) ignored.push(`outcome “${outcome.slice(0, 40)}” (not an outcome)`);
  if (since === null) ignored.push("the From time (not a date and time)");
  if (until === null) ignored.push("the To time (not a date and time)");
  if (beforeRaw && !before) ignored.push("the page cursor");
  return {
    filters: {
      actor: one(sp.user)?.slice(0, 200),
      action: one(sp.action)?.slice(0, 100),
      outcome: (OUTCOMES as readonly string[]).includes(outcome ?? "") ? (outcome as AuditOutcome) : undefined,
      since: since ?? undefined,
      until: until ?? undefined,
      before,
    },
    ignored,
  };
}

/** The URL of a filter set (and page); times as UTC `YYYY-MM-DDTHH:MM`. */
export function auditHref(f: AuditFilters, before?: number): string {
  const p = new URLSearchParams();
  if (f.actor) p.set("user", f.actor);
  if (f.action) p.set("action", f.action);
  if (f.outcome) p.set("outcome", f.outcome);
  if (f.since) p.set("from", toMinute(f.since));
  if (f.until) p.set("to", toMinute(f.until));
  if (before) p.set("before", String(before));
  const s = p.toString();
  return s ? `/audit?${s}` : "/audit";
}

/** The value of a datetime-local input, in UTC. */
export const toMinute = (d: Date) => d.toISOString().slice(0, 16);
