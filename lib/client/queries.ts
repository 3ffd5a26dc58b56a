// The console's polled reads: one registry of TanStack Query keys, and beside
// each key the query that fetches it through the one getJson (riverui's
// services + utils/api.ts). Pages add only how often they poll.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import type { ExplainContext } from "@/lib/insight/explain";
import type { WindowKey } from "@/lib/insight/windows";
import type { HistoryRange } from "@/lib/metrics/history";
import type { DeadGroupKey } from "@/lib/jobs/dead";
import { STATES } from "@/lib/fsm/table";
import { getJson, HttpError, shaped } from "./get-json";
import { parseJobDetail } from "./job-detail";
import type {
  AlertsResponse,
  CountsResponse,
  DeadGroupsResponse,
  DeadJobsResponse,
  DriftResponse,
  HealthResponse,
  JobsResponse,
  OperationResult,
  OverviewResponse,
  QueuesResponse,
  QueueStatusResponse,
  SchedulesResponse,
  CronPreview,
  TypeHistoryResponse,
  WorkersResponse,
} from "./wire";

/**
 * Every query key of the console. A prefix invalidates everything under it:
 * `keys.jobs.all` refreshes the list and every open job page.
 */
export const keys = {
  counts: () => ["counts"] as const,
  jobs: {
    all: ["jobs"] as const,
    list: (search: string) => [...keys.jobs.all, "list", search] as const,
    detail: (id: string) => [...keys.jobs.all, "detail", id] as const,
  },
  operations: {
    progress: (id: string) => ["operations", "progress", id] as const,
  },
  dead: {
    all: ["dead"] as const,
    /** The groups and every group's jobs: what a finished replay changes. */
    lists: ["dead", "list"] as const,
    groups: (search: string) => [...keys.dead.lists, "groups", search] as const,
    jobs: (search: string, g: DeadGroupKey) => [...keys.dead.lists, "jobs", search, g.type, g.errorClass] as const,
  },
  insight: {
    all: ["insight"] as const,
    overview: (window: WindowKey) => [...keys.insight.all, "overview", window] as const,
    workers: () => [...keys.insight.all, "workers"] as const,
    drift: () => [...keys.insight.all, "drift"] as const,
    slowness: (id: string) => [...keys.insight.all, "slowness", id] as const,
    typeHistory: (type: string, range: HistoryRange) => [...keys.insight.all, "type-history", type, range] as const,
  },
  queues: {
    all: ["queues"] as const,
    list: (search: string) => [...keys.queues.all, "list", search] as const,
    status: (name: string) => [...keys.queues.all, "status", name] as const,
  },
  schedules: () => ["schedules"] as const,
  alerts: () => ["alerts"] as const,
  cronPreview: (cron: string, timeZone: string) => ["cron-preview", cron, timeZone] as const,
  health: () => ["health"] as const,
};

const withSearch = (path: string, search: string | URLSearchParams) => {
  const s = search.toString();
  return s ? `${path}?${s}` : path;
};

/** A read: its key, and GET `url` checked by `parse` (`shaped`: the fields the page relies on). */
const readQuery = <T, K extends readonly unknown[]>(queryKey: K, url: string, parse: (body: unknown) => T) =>
  queryOptions({ queryKey, queryFn: ({ signal }) => getJson(url, signal, parse) });

export const countsQuery = () =>
  readQuery(keys.counts(), "/api/counts", (body) => {
    const parsed = shaped<CountsResponse>("counts", { counts: "object", capped: "array", total: "number", at: "string" })(body);
    if (!STATES.every((s) => typeof parsed.counts[s] === "number")) throw new Error("The server sent counts in an unexpected shape.");
    return parsed;
  });

export const jobsQuery = (search: string) =>
  readQuery(keys.jobs.list(search), withSearch("/api/jobs", search), shaped<JobsResponse>("jobs", { jobs: "array", counts: "object", at: "string" }));

export const jobDetailQuery = (id: string) => readQuery(keys.jobs.detail(id), `/api/jobs/${encodeURIComponent(id)}`, parseJobDetail);

/** A durable operation's progress, polled every second until it is over. */
export const operationProgressQuery = (id: string) =>
  queryOptions({
    queryKey: keys.operations.progress(id),
    queryFn: ({ signal }) =>
      getJson(
        `/api/bulk/${encodeURIComponent(id)}`,
        signal,
        shaped<OperationResult>("progress", { status: "string", total: "number", done: "number", applied: "number", refused: "array" }),
      ),
    refetchInterval: (q) => (q.state.data && q.state.data.status !== "running" ? false : 1_000),
  });

export const deadGroupsQuery = (search: string) =>
  readQuery(
    keys.dead.groups(search),
    withSearch("/api/dead", search),
    shaped<DeadGroupsResponse>("dead-job groups", { groups: "array", capped: "boolean", at: "string" }),
  );

/** A group's jobs are asked for with `type` and `errorClass`; an absent `errorClass` is the "(no error)" group. */
function groupSearch(search: string, g: DeadGroupKey, cursor?: string | null): URLSearchParams {
  const q = new URLSearchParams(search);
  q.set("type", g.type);
  if (g.errorClass !== null) q.set("errorClass", g.errorClass);
  if (cursor) q.set("cursor", cursor);
  return q;
}

export const deadJobsQuery = (search: string, g: DeadGroupKey) =>
  infiniteQueryOptions({
    queryKey: keys.dead.jobs(search, g),
    queryFn: ({ pageParam, signal }) =>
      getJson(
        withSearch("/api/dead", groupSearch(search, g, pageParam)),
        signal,
        shaped<DeadJobsResponse>("a group's jobs", { jobs: "array", at: "string" }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });

export const overviewQuery = (window: WindowKey) =>
  readQuery(
    keys.insight.overview(window),
    `/api/insight/overview?window=${window}`,
    shaped<OverviewResponse>("the charts", { series: "array", latency: "array", at: "string" }),
  );

export const typeHistoryQuery = (type: string, range: HistoryRange) =>
  readQuery(
    keys.insight.typeHistory(type, range),
    `/api/types/${encodeURIComponent(type)}?range=${range}`,
    shaped<TypeHistoryResponse>("the type's history", { points: "array", at: "string" }),
  );

export const workersQuery = () =>
  readQuery(keys.insight.workers(), "/api/insight/workers", shaped<WorkersResponse>("workers", { workers: "array", at: "string" }));

/** `search`: the page's query string (`q=…&after=…`), as the URL has it. */
export const queuesQuery = (search: string) =>
  readQuery(
    keys.queues.list(search),
    `/api/queues${search ? `?${search}` : ""}`,
    shaped<QueuesResponse>("queues", { queues: "array", at: "string" }),
  );

export const queueStatusQuery = (name: string) =>
  readQuery(
    keys.queues.status(name),
    `/api/queues/${encodeURIComponent(name)}`,
    shaped<QueueStatusResponse>("the queue", { name: "string", paused: "boolean", at: "string" }),
  );

export const schedulesQuery = () =>
  readQuery(keys.schedules(), "/api/schedules", shaped<SchedulesResponse>("schedules", { schedules: "array", at: "string" }));

export const alertsQuery = () =>
  readQuery(keys.alerts(), "/api/alerts", shaped<AlertsResponse>("alert rules", { rules: "array", deliveries: "array", at: "string" }));

/** A cron expression as it is typed: in words, its next ticks, or why it would be refused. */
export const cronPreviewQuery = (cron: string, timeZone: string) => ({
  ...readQuery(
    keys.cronPreview(cron, timeZone),
    withSearch("/api/schedules/preview", new URLSearchParams({ cron, timeZone })),
    shaped<CronPreview>("the expression", { ok: "boolean" }),
  ),
  staleTime: 30_000,
});

export const driftQuery = () =>
  readQuery(keys.insight.drift(), "/api/insight/drift", shaped<DriftResponse>("the drift status", { count: "number", capped: "boolean" }));

/** The comparison changes slowly: fetched once per visit, again after a minute at most. */
export const slownessQuery = (id: string) => ({
  ...readQuery(
    keys.insight.slowness(id),
    `/api/insight/jobs/${encodeURIComponent(id)}/slowness`,
    shaped<ExplainContext>("the comparison", { baselines: "array" }),
  ),
  staleTime: 60_000,
});

/**
 * What the outage banner tells apart: the database not answering (the health
 * check's 503), the console's server failing (any other error status), and the
 * server not reachable at all.
 */
export type Health = { status: "up" } | { status: "database" } | { status: "server"; httpStatus: number } | { status: "unreachable" };

export const healthQuery = () =>
  queryOptions({
    queryKey: keys.health(),
    queryFn: async ({ signal }): Promise<Health> => {
      try {
        await getJson("/api/integrity/health", signal, shaped<HealthResponse>("the health check", { ok: "boolean" }));
        return { status: "up" };
      } catch (err) {
        if (signal.aborted) throw err;
        if (!(err instanceof HttpError)) return { status: "unreachable" };
        return err.code === "database_unavailable" ? { status: "database" } : { status: "server", httpStatus: err.status };
      }
    },
    retry: false,
  });
