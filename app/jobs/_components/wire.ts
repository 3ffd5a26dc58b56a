import type { JobState } from "@/lib/fsm/table";
import type { StateCounts } from "@/lib/jobs/queries";
import type { BulkProgress } from "@/lib/jobs/bulk";

/** A row of the jobs list as JSON carries it: times as ISO strings. */
export type JobWire = {
  id: string;
  tenantId: string;
  type: string;
  queue: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  stateVersion: number;
  lastErrorClass: string | null;
  lastWorker: string | null;
  /** Attempts that ended lease_expired; POISON_LOSSES or more marks a poison suspect. */
  leaseLosses: number;
  createdAt: string;
  finishedAt: string | null;
};

/** What GET /api/jobs answers, and what the page renders first on the server. */
export type JobsResponse = {
  jobs: JobWire[];
  /** Cursor to older jobs (`after`), or null on the last page. */
  next: string | null;
  /** Cursor to newer jobs (`before`), or null on the first page. */
  prev: string | null;
  counts: StateCounts;
  at: string;
};

/** What GET /api/bulk/[id] answers. */
export type BulkProgressWire = Omit<BulkProgress, "createdAt" | "finishedAt"> & { createdAt: string; finishedAt: string | null };

/** What every GET route handler answers on failure (the same shape as /api/counts). */
export type ApiErrorBody = { error: { code: string; message: string } };

/** What every server action on this page answers. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string } };
