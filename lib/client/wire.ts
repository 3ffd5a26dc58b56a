// What the console's GET route handlers answer, as JSON carries it. The route
// handlers type their bodies with these, and the browser reads them with
// lib/client/queries.ts: one definition for both ends of each wire.
import type { AlertDelivery, AlertRule } from "@/lib/alerts/rules";
import type { HistoryRange, TypeHistoryPoint } from "@/lib/metrics/history";
import type { JobState } from "@/lib/fsm/table";
import type { BulkEvent, BulkOutcome, BulkProgress } from "@/lib/jobs/bulk";
import type { DeadGroup, DeadJob } from "@/lib/jobs/dead";
import type { OperationOutcome } from "@/lib/jobs/operation";
import type { JobListRow, StateCounts } from "@/lib/jobs/queries";
import type { QueueRow, QueueStatus } from "@/lib/jobs/queue-stats";
import type { ScheduleListRow } from "@/lib/schedules/list";
import type { DriftStatus, ErrorClassRow, PoisonSuspect, RecentRejection, ThroughputPoint, TypeLatency, WorkerRow } from "@/lib/insight/queries";
import type { WindowKey } from "@/lib/insight/windows";
import type { ErrorBody } from "@/lib/result";

/** A server type as it arrives over JSON: Dates become ISO strings. */
export type Wire<T> = T extends Date ? string : T extends readonly (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;

/** What every GET route handler answers on failure (lib/frame/route.ts): the one error body of lib/result.ts. */
export type ApiErrorBody = { error: ErrorBody };

/**
 * GET /api/counts. Each count stops at a cap (lib/jobs/queries.ts COUNT_CAP);
 * the states in `capped` have at least that many jobs, and then the total is a lower bound too.
 */
export type CountsResponse = { counts: Record<JobState, number>; capped: JobState[]; total: number; at: string };

/** A row of the jobs list: what load.ts picks from each listed job. */
export type JobWire = Wire<Omit<JobListRow, "priority" | "updatedAt">> & {
  /** A running job's last reported progress (lib/jobs/progress.ts). */
  progress?: { done: number; total: number } | null;
};

/** GET /api/jobs, and what the jobs page renders first on the server. */
export type JobsResponse = {
  jobs: JobWire[];
  /** Cursor to older jobs (`after`), or null on the last page. */
  next: string | null;
  /** Cursor to newer jobs (`before`), or null on the first page. */
  prev: string | null;
  counts: StateCounts;
  /** Sorted by duration or filtered by it: how many of the filter's newest jobs were ranked (lib/jobs/queries.ts listByDuration). */
  ranked?: { n: number; capped: boolean } | null;
  /** Under `operation=<id>`: what became of the jobs that bulk operation touched (lib/jobs/operation.ts); null when there is no such operation. */
  operation?: Wire<OperationOutcome> | null;
  at: string;
};

/** What an operation does to jobs: an event of the state machine, or deleting finished jobs with their history. */
export type OperationKind = BulkEvent | "delete";

/** Why a job was not moved: a refusal of the write path, or (deleting) it was no longer finished and free. */
export type Refusal = Exclude<BulkOutcome, "applied"> | "kept";

/** One job's outcome when the operation was applied at once. `message`: a refusal in words (who moved it first). */
export type JobOutcome = { id: string; outcome: BulkOutcome; state: JobState | null; stateVersion: number | null; message: string };

/**
 * What became of an operation: the confirm's answer, and GET /api/bulk/[id]'s while a worker
 * runs it. Applied at once: `operationId` null, every job in `jobs` (none for a deletion, which
 * says what went in `message`). Recorded: `operationId`, counts only (the jobs are at
 * /jobs?operation=<id>).
 */
export type OperationResult = Pick<BulkProgress, "description" | "status" | "total" | "done" | "applied"> & {
  event: OperationKind;
  /** Refusals by kind, most common first, each with one example of its reason. */
  refused: { kind: Refusal; count: number; sampleReason: string }[];
  operationId: string | null;
  jobs: JobOutcome[];
  message?: string;
};

export type DeadGroupDto = Wire<DeadGroup>;
export type DeadJobDto = Wire<DeadJob>;

/** GET /api/dead: the groups, as of `at` (the server's clock). */
export type DeadGroupsResponse = {
  groups: DeadGroupDto[];
  /** The groups cover only the newest `scanCap` dead jobs (lib/jobs/dead.ts). */
  capped: boolean;
  scanCap: number;
  at: string;
};

/** GET /api/dead?type=…: one page of a group's jobs. */
export type DeadJobsResponse = { jobs: DeadJobDto[]; next: string | null; at: string };

/** GET /api/insight/overview?window=…: the overview's charts and tables. */
export type OverviewResponse = Wire<{
  window: WindowKey;
  series: ThroughputPoint[];
  latency: TypeLatency[];
  errors: ErrorClassRow[];
  poison: PoisonSuspect[];
  rejections: RecentRejection[];
  at: string;
}>;

/** GET /api/insight/workers. */
export type WorkersResponse = Wire<{ workers: WorkerRow[]; at: string }>;

/** GET /api/insight/drift. */
export type DriftResponse = Wire<DriftStatus>;

/** GET /api/integrity/health: whether the database answers (503 when it does not). */
export type HealthResponse = { ok: true; latencyMs: number } | { ok: false; error: { code: string; message: string } };

/** GET /api/queues: every queue (lib/jobs/queue-stats.ts). */
export type QueuesResponse = { queues: Wire<QueueRow>[]; next: string | null; at: string };

/** GET /api/queues/[name]: whether the queue is paused (the jobs list's banner); `pausedBy` only for staff. */
export type QueueStatusResponse = Wire<QueueStatus> & { at: string };

/** GET /api/schedules: every schedule with its next and last runs (lib/schedules/list.ts). */
export type SchedulesResponse = { schedules: Wire<ScheduleListRow>[]; at: string };

/** GET /api/alerts: the rules the viewer may see, and the latest deliveries with their attempts. */
export type AlertsResponse = { rules: Wire<AlertRule>[]; deliveries: Wire<AlertDelivery>[]; at: string };

/** GET /api/schedules/preview: a cron expression in words and its next ticks, or why it would be refused. */
export type CronPreview = { ok: true; description: string | null; next: string[] } | { ok: false; message: string; description: string | null };
/** GET /api/types/[type]?range=…: one job type's history charts (lib/metrics/history.ts). */
export type TypeHistoryResponse = { type: string; range: HistoryRange; points: TypeHistoryPoint[]; at: string };
