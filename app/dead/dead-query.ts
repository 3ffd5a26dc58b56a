import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import type { BulkProgress } from "@/lib/jobs/bulk";
import type { DeadGroup, DeadGroupKey, DeadJob } from "@/lib/jobs/dead";
import { scopeToSearch, type DeadScopeParams } from "./scope";

/** Dates travel as ISO strings. */
type Wire<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };
export type DeadGroupDto = Wire<DeadGroup>;
export type DeadJobDto = Wire<DeadJob>;

/** What GET /api/dead answers: the groups, as of `at` (the server's clock). */
export type DeadGroupsResponse = {
  groups: DeadGroupDto[];
  /** The groups cover only the newest `scanCap` dead jobs (lib/jobs/dead.ts). */
  capped: boolean;
  scanCap: number;
  at: string;
};
/** What GET /api/dead?type=… answers: one page of a group's jobs. */
export type DeadJobsResponse = { jobs: DeadJobDto[]; next: string | null; at: string };

/** The name of the group of dead jobs that carry no error class. */
export const NO_ERROR = "(no error)";
/** A group as the page names it: "email.send · SmtpTimeout". */
export const groupName = (g: Pick<DeadGroupDto, "type" | "errorClass">) => `${g.type} · ${g.errorClass ?? NO_ERROR}`;

export const toGroupDto = (g: DeadGroup): DeadGroupDto => ({
  ...g,
  firstSeen: g.firstSeen.toISOString(),
  lastSeen: g.lastSeen.toISOString(),
});
export const toJobDto = (j: DeadJob): DeadJobDto => ({ ...j, finishedAt: j.finishedAt.toISOString() });

export const deadKeys = {
  all: ["dead"] as const,
  groups: (s: DeadScopeParams) => [...deadKeys.all, "groups", s] as const,
  jobs: (s: DeadScopeParams, g: DeadGroupKey) => [...deadKeys.all, "jobs", s, g.type, g.errorClass] as const,
};

/**
 * A group's jobs are asked for with `type` and `errorClass`; an absent or
 * empty `errorClass` is the "(no error)" group.
 */
export function groupSearch(s: DeadScopeParams, g: DeadGroupKey, cursor?: string | null): URLSearchParams {
  const q = scopeToSearch(s);
  q.set("type", g.type);
  if (g.errorClass !== null) q.set("errorClass", g.errorClass);
  if (cursor) q.set("cursor", cursor);
  return q;
}

const withQuery = (path: string, q: URLSearchParams) => (q.size ? `${path}?${q}` : path);

async function getJson(url: string, signal?: AbortSignal): Promise<unknown> {
  const res = await fetch(url, { signal, cache: "no-store", headers: { accept: "application/json" } });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new Error(errorMessage(body) ?? `The server answered ${res.status}.`);
  return body;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function errorMessage(body: unknown): string | null {
  if (!isRecord(body) || !isRecord(body.error)) return null;
  return typeof body.error.message === "string" ? body.error.message : null;
}

export async function fetchDeadGroups(s: DeadScopeParams, signal?: AbortSignal): Promise<DeadGroupsResponse> {
  const body = await getJson(withQuery("/api/dead", scopeToSearch(s)), signal);
  if (!isRecord(body) || !Array.isArray(body.groups) || typeof body.capped !== "boolean" || typeof body.at !== "string") {
    throw new Error("The server sent dead-job groups in an unexpected shape.");
  }
  // Our own route's answer, checked above for its outer shape.
  return body as DeadGroupsResponse;
}

export async function fetchDeadJobs(
  s: DeadScopeParams,
  g: DeadGroupKey,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<DeadJobsResponse> {
  const body = await getJson(withQuery("/api/dead", groupSearch(s, g, cursor)), signal);
  if (!isRecord(body) || !Array.isArray(body.jobs) || typeof body.at !== "string") {
    throw new Error("The server sent a group's jobs in an unexpected shape.");
  }
  // Our own route's answer, checked above for its outer shape.
  return body as DeadJobsResponse;
}

export const deadGroupsQuery = (s: DeadScopeParams) =>
  queryOptions({ queryKey: deadKeys.groups(s), queryFn: ({ signal }) => fetchDeadGroups(s, signal) });

export const deadJobsQuery = (s: DeadScopeParams, g: DeadGroupKey) =>
  infiniteQueryOptions({
    queryKey: deadKeys.jobs(s, g),
    queryFn: ({ pageParam, signal }) => fetchDeadJobs(s, g, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });

/** The part of GET /api/bulk/[id] (served by the bulk work) that the replay dialog shows. */
export type ReplayProgress = Pick<BulkProgress, "status" | "total" | "done" | "applied" | "refused">;

export async function fetchReplayProgress(operationId: string, signal?: AbortSignal): Promise<ReplayProgress> {
  const body = await getJson(`/api/bulk/${encodeURIComponent(operationId)}`, signal);
  if (!isRecord(body) || typeof body.status !== "string" || typeof body.done !== "number" || !Array.isArray(body.refused)) {
    throw new Error("The server sent the replay's progress in an unexpected shape.");
  }
  // GET /api/bulk/[id] answers getBulkProgress's fields, checked above for the ones read here.
  return body as ReplayProgress;
}

export const replayProgressQuery = (operationId: string) =>
  queryOptions({
    queryKey: [...deadKeys.all, "replay", operationId] as const,
    queryFn: ({ signal }) => fetchReplayProgress(operationId, signal),
    // Poll until the operation is over, then stop.
    refetchInterval: (q) => (q.state.data && q.state.data.status !== "running" ? false : 500),
  });
