/**
 * A string PostgreSQL's uuid type accepts in the canonical form: asked before a
 * query, so that a malformed id is "not found" rather than a database error.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID.test(s);

/** Shorter than this, a prefix of a job id would match too many jobs to be a lookup. */
export const MIN_ID_PREFIX = 8;

/**
 * The uuid range a job id prefix covers ("01a230b2", "01a230b2-601a", or 8–31 hex digits with or
 * without dashes): the ids from `lo` to `hi` inclusive start with it, one range scan of a primary
 * key. Null for anything else (a full id, a key, too short).
 */
export function idPrefixRange(s: string): { lo: string; hi: string } | null {
  const hex = s.trim().toLowerCase().replace(/-/g, "");
  if (!/^[0-9a-f]+$/.test(hex) || hex.length < MIN_ID_PREFIX || hex.length >= 32) return null;
  // Dashes only where a uuid has them.
  if (s.includes("-") && !/^[0-9a-f]{8}(-[0-9a-f]{0,4}(-[0-9a-f]{0,4}(-[0-9a-f]{0,4}(-[0-9a-f]{0,12})?)?)?)?$/i.test(s.trim())) return null;
  const fmt = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { lo: fmt(hex.padEnd(32, "0")), hi: fmt(hex.padEnd(32, "f")) };
}

/**
 * The console's short id (lib/jobs/short-id.ts): the last 8 hex digits of a job id, found through
 * job_catalog_id_tail_idx (0022). Eight hex digits are looked up both as this and as a prefix.
 */
export const shortIdOf = (s: string): string | null => (/^[0-9a-f]{8}$/i.test(s.trim()) ? s.trim().toLowerCase() : null);
