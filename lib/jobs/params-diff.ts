/** How edited params differ from a job's own: pure, for the server (the audit log) and the browser (the dialog, the job page). */

/** One changed field of the params: its path ("frames", "options.size"), and its value before and after (undefined: absent). */
export type ParamsChange = { path: string; from: unknown; to: unknown };

/** What changed between two params documents, field by field (objects compared key by key; anything else as a whole). */
export function paramsDiff(before: unknown, after: unknown, path = ""): ParamsChange[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => paramsDiff(before[k], after[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path: path || "(params)", from: before, to: after }];
}

/** A diff in words, for the audit log and the operation's description: `frames 240 → 120; resolution removed`. */
export function describeDiff(changes: readonly ParamsChange[]): string {
  if (changes.length === 0) return "params unchanged";
  const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v).slice(0, 80));
  return changes.map((c) => `${c.path} ${show(c.from)} → ${show(c.to)}`).join("; ");
}
