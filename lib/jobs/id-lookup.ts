import type { IdPiece } from "../uuid";
import { num, type Fragment } from "./read-model";
import { sql } from "drizzle-orm";

/** A piece of an id matches this many jobs at most per end (the list shows them; a longer piece narrows them). */
export const ID_PIECE_MATCHES = 200;

/** How much of an id's end job_catalog_id_suffix_idx keys (drizzle/0025): its last group, 12 hex digits. */
const SUFFIX_KEY = 12;

/**
 * The ids of the jobs (at most `limit` per end) whose id starts or ends with `piece`: the start is a
 * range of job_catalog_pkey, the end a range of job_catalog_id_suffix_idx (the last 12 digits,
 * reversed, as a number; a longer end is one key, then checked) through jobscope_id_suffix_match.
 * Rows: (id).
 */
export function idPieceIds(piece: IdPiece, limit = ID_PIECE_MATCHES): Fragment {
  const parts: Fragment[] = [];
  if (piece.prefix) {
    parts.push(
      sql`(SELECT c.id FROM job_catalog c WHERE c.id BETWEEN ${piece.prefix.lo}::uuid AND ${piece.prefix.hi}::uuid ORDER BY c.id DESC LIMIT ${num(limit)})`,
    );
  }
  if (piece.suffix) {
    // The end's last 12 digits (fewer for a short piece) reversed are the key's leading digits: a range of keys.
    const lead = [...piece.suffix.slice(-SUFFIX_KEY)].reverse().join("");
    const lo = parseInt(lead.padEnd(SUFFIX_KEY, "0"), 16);
    const hi = parseInt(lead.padEnd(SUFFIX_KEY, "f"), 16);
    // As the owner, with the tenant policy written out (drizzle/0025): a tenant's scope could not use the index.
    parts.push(sql`(SELECT m.id FROM jobscope_id_suffix_match(${num(lo)}, ${num(hi)}, ${piece.suffix}::text, ${num(limit)}) m)`);
  }
  return parts.length ? parts.reduce((acc, p) => sql`${acc} UNION ${p}`) : sql`SELECT NULL::uuid AS id WHERE false`;
}

/** Which end of `id` matched `piece` ("start", "end", or both when it is both): what the list marks. */
export function matchedEnds(id: string, piece: IdPiece): ("start" | "end")[] {
  const hex = id.replace(/-/g, "");
  return [
    ...(piece.prefix && hex.startsWith(piece.hex) ? (["start"] as const) : []),
    ...(piece.suffix && hex.endsWith(piece.hex) ? (["end"] as const) : []),
  ];
}
