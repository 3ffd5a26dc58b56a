import { queryOptions } from "@tanstack/react-query";
import { STATES, type JobState } from "@/lib/fsm/table";

/**
 * What GET /api/counts answers. Each count stops at a cap (lib/jobs/queries.ts
 * COUNT_CAP); the states in `capped` have at least that many jobs, and then
 * the total is a lower bound too.
 */
export type CountsResponse = { counts: Record<JobState, number>; capped: JobState[]; total: number; at: string };

/** What every GET route handler answers on failure. */
export type ApiErrorBody = { error: { code: string; message: string } };

export const countKeys = {
  all: ["counts"] as const,
  byState: () => [...countKeys.all, "by-state"] as const,
};

export async function fetchCounts(signal?: AbortSignal): Promise<CountsResponse> {
  const res = await fetch("/api/counts", { signal, cache: "no-store", headers: { accept: "application/json" } });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new Error(errorMessage(body) ?? `The server answered ${res.status}.`);
  if (!isCountsResponse(body)) throw new Error("The server sent counts in an unexpected shape.");
  return body;
}

export const countsQuery = () =>
  queryOptions({ queryKey: countKeys.byState(), queryFn: ({ signal }) => fetchCounts(signal) });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isCountsResponse(body: unknown): body is CountsResponse {
  if (!isRecord(body) || typeof body.total !== "number" || typeof body.at !== "string") return false;
  const counts = body.counts;
  return isRecord(counts) && STATES.every((state) => typeof counts[state] === "number") && Array.isArray(body.capped);
}

function errorMessage(body: unknown): string | null {
  if (!isRecord(body) || !isRecord(body.error)) return null;
  return typeof body.error.message === "string" ? body.error.message : null;
}
