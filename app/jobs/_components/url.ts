import { filtersToSearch, type JobFilters } from "@/lib/jobs/filters";

/** The canonical query string of a filter: what the URL, the poll and the query key all use. */
export function searchOf(f: Partial<JobFilters>): string {
  return filtersToSearch(f).toString();
}

export function jobsHref(f: Partial<JobFilters>): string {
  const search = searchOf(f);
  return search ? `/jobs?${search}` : "/jobs";
}

/**
 * The list under changed filters, back on its first page: a cursor belongs to the filter it came
 * from, and so does the phrase the filters were read from (its echo would no longer be true).
 */
export function refilteredHref(f: JobFilters, patch: Partial<JobFilters>): string {
  return jobsHref({ ...f, phrase: undefined, ...patch, after: undefined, before: undefined });
}

/** The jobs a bulk operation or a replay touched, with what became of them: where every result links. */
export function operationHref(operationId: string): string {
  return jobsHref({ operation: operationId });
}
