import type { JobFilters } from "@/lib/jobs/filters";

const LABELS: [keyof JobFilters, string][] = [
  ["state", "state"],
  ["tenant", "tenant"],
  ["type", "type"],
  ["queue", "queue"],
  ["errorClass", "error"],
  ["worker", "worker"],
  ["q", "id or key"],
  ["params", "params"],
  ["operation", "operation"],
  ["createdFrom", "created from"],
  ["createdTo", "created before"],
  ["finishedFrom", "finished from"],
  ["finishedTo", "finished before"],
  ["longerThan", "took longer than"],
];

/** A filter in words, for a bulk action's record: "state dead · type media.render". */
export function describeFilter(f: Partial<JobFilters>): string {
  const parts = LABELS.flatMap(([key, label]) => {
    const v = f[key];
    if (v === undefined || v === null || v === "") return [];
    return [`${label} ${v instanceof Date ? v.toISOString() : String(v)}`];
  });
  return parts.length ? `all jobs matching ${parts.join(" · ")}` : "all jobs";
}
