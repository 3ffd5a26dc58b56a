/**
 * The jobs list's search by params: what a person types, as a JSON containment
 * that job_catalog_params_idx (GIN, jsonb_path_ops; drizzle/0024) serves.
 *
 * Two forms:
 * - equality on a path: `params.customer_id = 42`, `customer_id = 42`, `export.format = "csv"`,
 *   `region = eu` (a bare word is a string); several joined with `and` or `,`. The `params.`
 *   prefix is optional. Written as containment: `{"customer_id": 42}`, `{"export": {"format": "csv"}}`.
 * - a JSON object, taken as is: `{"customer_id": 42}`: the jobs whose params contain it.
 *
 * Containment is exact on scalars (`42` does not match `"42"`), and an array matches the arrays that
 * contain its elements. A value must be a scalar in the path form; use the JSON form for arrays.
 * Pure: the form checks input with it before it goes into the URL, the server again before it reads.
 */

export type ParamsFilter = { ok: true; contains: Record<string, unknown>; json: string } | { ok: false; message: string };

/** Longest text accepted, in characters (the URL keeps it). */
export const PARAMS_FILTER_MAX = 500;
/** Deepest path, and most conditions, one filter may have. */
const MAX_DEPTH = 8;
const MAX_TERMS = 8;

const KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
const BARE = /^[A-Za-z0-9_.:@+-]{1,200}$/;

const fail = (message: string): ParamsFilter => ({ ok: false, message });

export function parseParamsFilter(input: string): ParamsFilter {
  const text = input.trim();
  if (!text) return fail('Type a condition such as params.customer_id = 42, or a JSON object such as {"customer_id": 42}.');
  if (text.length > PARAMS_FILTER_MAX) return fail(`The params search is longer than ${PARAMS_FILTER_MAX} characters.`);
  if (/\u0000/.test(text)) return fail("The params search contains a NUL character.");
  return text.startsWith("{") ? fromJson(text) : fromPaths(text);
}

function fromJson(text: string): ParamsFilter {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = err instanceof SyntaxError ? err.message.replace(/^JSON\.parse: /, "") : "not JSON";
    return fail(`Not valid JSON: ${why}.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return fail('The JSON must be an object, such as {"customer_id": 42}.');
  if (Object.keys(value).length === 0) return fail("The JSON object is empty: every job's params contain {}.");
  if (depthOf(value) > MAX_DEPTH) return fail(`The JSON is nested deeper than ${MAX_DEPTH} levels.`);
  return ok(value as Record<string, unknown>);
}

function fromPaths(text: string): ParamsFilter {
  const terms = splitTerms(text);
  if (terms === null) return fail("A quoted value is not closed.");
  if (terms.length > MAX_TERMS) return fail(`At most ${MAX_TERMS} conditions at once.`);
  const contains: Record<string, unknown> = {};
  for (const term of terms) {
    const eq = term.indexOf("=");
    if (eq < 0) return fail(`“${clip(term)}” has no “=”: write a condition as path = value, e.g. params.customer_id = 42.`);
    const path = term.slice(0, eq).trim();
    const raw = term.slice(eq + 1).trim();
    const keys = path.split(".");
    if (keys[0] === "params") keys.shift();
    if (keys.length === 0 || keys.some((k) => !KEY.test(k))) {
      return fail(`“${clip(path)}” is not a params path: use names of letters, digits, _ and -, joined by dots (params.customer.id).`);
    }
    if (keys.length > MAX_DEPTH) return fail(`The path ${clip(path)} is deeper than ${MAX_DEPTH} levels.`);
    const value = scalarOf(raw);
    if (value === undefined) {
      return fail(`“${clip(raw) || "(nothing)"}” is not a value: use a number, true, false, null, a "quoted string" or a single word.`);
    }
    if (!place(contains, keys, value)) return fail(`The path ${clip(path)} is given twice, or both as a value and as an object.`);
  }
  return ok(contains);
}

/** Split on `and` / `,` outside double quotes; null when a quote is left open. */
function splitTerms(text: string): string[] | null {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' && text[i - 1] !== "\\") quoted = !quoted;
    if (!quoted && ch === ",") {
      out.push(cur);
      cur = "";
      continue;
    }
    if (!quoted && /\s/.test(ch) && /^and\s/i.test(text.slice(i + 1, i + 5)) && cur.trim()) {
      out.push(cur);
      cur = "";
      i += 4;
      continue;
    }
    cur += ch;
  }
  if (quoted) return null;
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== "");
}

/** A JSON scalar (number, string, true, false, null), or a bare word as a string. */
function scalarOf(raw: string): unknown {
  if (!raw) return undefined;
  if (raw.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(raw);
      return typeof v === "string" ? v : undefined;
    } catch {
      return undefined;
    }
  }
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (raw === "null") return null;
  if (/^-?(0|[1-9]\d{0,15})(\.\d{1,15})?([eE][+-]?\d{1,3})?$/.test(raw)) return Number(raw);
  return BARE.test(raw) ? raw : undefined;
}

function place(into: Record<string, unknown>, keys: string[], value: unknown): boolean {
  let node = into;
  for (const k of keys.slice(0, -1)) {
    const next = node[k];
    if (next === undefined) node[k] = {};
    else if (next === null || typeof next !== "object") return false;
    node = node[k] as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  if (last in node) return false;
  node[last] = value;
  return true;
}

function depthOf(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  return 1 + Math.max(0, ...Object.values(v as object).map(depthOf));
}

const ok = (contains: Record<string, unknown>): ParamsFilter => ({ ok: true, contains, json: JSON.stringify(contains) });
const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
