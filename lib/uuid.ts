/**
 * A string PostgreSQL's uuid type accepts in the canonical form: asked before a
 * query, so that a malformed id is "not found" rather than a database error.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID.test(s);

/**
 * Shorter than this, a piece of a job id is not looked up as one: five hex digits would match a
 * job in sixteen at the end of an id (random bits) and thousands at its start (the submit time).
 */
export const MIN_ID_PIECE = 6;

/** Where dashes fall in a uuid's text, counted from its start: after 8, 12, 16 and 20 hex digits. */
const DASHES = [8, 12, 16, 20];

/** `hex` (no dashes) as the start of a uuid's text: "01a230b2601a" → "01a230b2-601a". */
const asPrefix = (hex: string) => [...hex].map((c, i) => (DASHES.includes(i) ? `-${c}` : c)).join("");

/** `hex` (no dashes) as the end of a uuid's text: "0b2601a71fab3d2ebfbabd04ab8" → "…-b3d2-ebfbabd04ab8". */
const asSuffix = (hex: string) =>
  [...hex]
    .map((c, i) => {
      const fromStart = 32 - hex.length + i;
      return DASHES.includes(fromStart) ? `-${c}` : c;
    })
    .join("");

/**
 * A pasted piece of a job id, as both ends of an id it may be: the ids from `prefix.lo` to
 * `prefix.hi` start with it (a range of the primary key), and the ids whose text ends with
 * `suffix` (dashes where a uuid has them). Either is null when the dashes typed rule that end out.
 */
export type IdPiece = { hex: string; prefix: { lo: string; hi: string } | null; suffix: string | null };

/** What a lookup of `text` means: one job's id, a piece of one (≥ MIN_ID_PIECE hex digits), or neither (a key, a phrase). */
export type IdQuery = { kind: "id"; id: string } | ({ kind: "piece" } & IdPiece) | null;

/**
 * Read what a person pasted into the lookup: a job's URL (its page, an API path, or a list link with
 * `?q=`), a full id (any case, with or without dashes or braces), or a piece of one — its start or
 * its end (the console prints the last 8 digits), at least MIN_ID_PIECE hex digits.
 */
export function idQueryOf(text: string): IdQuery {
  let s = text.trim();
  const fromUrl = idFromUrl(s);
  if (fromUrl !== null) s = fromUrl;
  s = s
    .replace(/^(urn:uuid:)/i, "")
    .replace(/^[{("'\s]+|[})"'\s]+$/g, "")
    .toLowerCase();
  if (isUuid(s)) return { kind: "id", id: s };
  const hex = s.replace(/-/g, "");
  if (!/^[0-9a-f]+$/.test(hex) || hex.length < MIN_ID_PIECE || hex.length > 32) return null;
  if (hex.length === 32) return s === hex ? { kind: "id", id: asPrefix(hex) } : null;
  const plain = !s.includes("-");
  const prefix = plain || s === asPrefix(hex) ? { lo: asPrefix(hex.padEnd(32, "0")), hi: asPrefix(hex.padEnd(32, "f")) } : null;
  const suffix = plain || s === asSuffix(hex) ? asSuffix(hex) : null;
  return prefix || suffix ? { kind: "piece", hex, prefix, suffix } : null;
}

/** The job id or lookup in a pasted link: /jobs/<id>, /api/v1/jobs/<id>[/…], or /jobs?q=<text>; null when `s` is not a link. */
function idFromUrl(s: string): string | null {
  if (!/^(https?:\/\/|\/)/i.test(s)) return null;
  let url: URL;
  try {
    url = new URL(s, "http://jobscope.invalid");
  } catch {
    return null;
  }
  const segment = /\/jobs\/([^/?#]+)/.exec(url.pathname)?.[1];
  if (segment) {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }
  return url.searchParams.get("q");
}

/**
 * The uuid range a job id prefix covers (a piece of its start, MIN_ID_PIECE to 31 hex digits, with
 * or without dashes): the ids from `lo` to `hi` inclusive start with it. Null for anything else.
 */
export function idPrefixRange(s: string): { lo: string; hi: string } | null {
  const q = idQueryOf(s);
  return q?.kind === "piece" ? q.prefix : null;
}
