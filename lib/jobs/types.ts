import type { jobs } from "../db/schema-views";
import type { ActorKind, JobEvent, JobState, RejectionKind } from "../fsm/table";

/** Who applies a transition: recorded in `job_events.actor_*`. */
export type Actor = { kind: ActorKind; id: string };

/** The job row as the write path returns it: a row of the `jobs` view (lib/db/schema-views.ts). */
export type JobRow = typeof jobs.$inferSelect;

export type TransitionInput = {
  jobId: string;
  event: JobEvent;
  actor: Actor;
  /** The state and version the caller saw (a console page). Omitted: act on the row as it is now. */
  expected?: { state: JobState; version: number };
  /** A worker's fencing token: required when `actor.kind` is "worker"; the lease owner is `actor.id`. */
  attempt?: number;
  /** Supervisor: apply only while the heartbeat is still older than this. */
  staleBefore?: Date;
  /** `fail` / `abandon` / `stop`: what went wrong, stored on the run record. */
  error?: { class: string; message: string };
  /** `finish`: the job's result, stored on the run record. */
  result?: unknown;
  /** `fail`: when the retry becomes due (`not_before`). */
  retryAt?: Date;
  /** Extra detail for the event log. */
  payload?: Record<string, unknown>;
  /** Back-dates the transition; only the demo seeder uses it. */
  at?: Date;
};

export type MovedBy = { event: JobEvent; actorKind: ActorKind; actorId: string; at: Date };

export type Rejection = {
  ok: false;
  kind: RejectionKind | "not_found";
  /** A sentence a person can act on. */
  reason: string;
  current: { state: JobState; stateVersion: number; attempt: number; movedBy: MovedBy | null } | null;
};

export type TransitionResult = { ok: true; job: JobRow; from: JobState; event: JobEvent } | Rejection;

/** A job handed to a worker by `claim`: claimed, or already running when claimed with `startNow`. */
export type ClaimedJob = Pick<JobRow, "id" | "tenantId" | "type" | "queue" | "priority" | "attempt" | "maxAttempts" | "stateVersion" | "params" | "createdAt"> & {
  state: "claimed" | "running";
};

/** What a heartbeat learns about one job: its current state, or that the lease is lost. */
export type HeartbeatResult = Map<string, { state: JobState; stateVersion: number }>;
