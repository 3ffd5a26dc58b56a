import { queryOptions } from "@tanstack/react-query";
import type { BulkProgressWire, JobsResponse } from "./wire";

/** TanStack Query keys for this page, beside their fetchers. */
export const jobKeys = {
  all: ["jobs"] as const,
  list: (search: string) => [...jobKeys.all, "list", search] as const,
};

export const bulkKeys = {
  all: ["bulk"] as const,
  progress: (id: string) => [...bulkKeys.all, "progress", id] as const,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

async function getJson(url: string, signal: AbortSignal | undefined, what: string): Promise<unknown> {
  const res = await fetch(url, { signal, cache: "no-store", headers: { accept: "application/json" } });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const message = isRecord(body) && isRecord(body.error) && typeof body.error.message === "string" ? body.error.message : null;
    throw new Error(message ?? `The server answered ${res.status}.`);
  }
  if (!isRecord(body)) throw new Error(`The server sent ${what} in an unexpected shape.`);
  return body;
}

export async function fetchJobs(search: string, signal?: AbortSignal): Promise<JobsResponse> {
  const body = await getJson(`/api/jobs${search ? `?${search}` : ""}`, signal, "jobs");
  if (!isRecord(body) || !Array.isArray(body.jobs) || !isRecord(body.counts) || typeof body.at !== "string") {
    throw new Error("The server sent jobs in an unexpected shape.");
  }
  // Checked above as far as the page relies on it; the route handler types the rest.
  return body as JobsResponse;
}

export const jobsQuery = (search: string) =>
  queryOptions({ queryKey: jobKeys.list(search), queryFn: ({ signal }) => fetchJobs(search, signal) });

export async function fetchBulkProgress(id: string, signal?: AbortSignal): Promise<BulkProgressWire> {
  const body = await getJson(`/api/bulk/${encodeURIComponent(id)}`, signal, "progress");
  if (!isRecord(body) || typeof body.total !== "number" || typeof body.done !== "number" || typeof body.status !== "string") {
    throw new Error("The server sent progress in an unexpected shape.");
  }
  // Checked above as far as the panel relies on it.
  return body as BulkProgressWire;
}

export const bulkProgressQuery = (id: string) =>
  queryOptions({ queryKey: bulkKeys.progress(id), queryFn: ({ signal }) => fetchBulkProgress(id, signal) });
