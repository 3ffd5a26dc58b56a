import type { jobs } from "../db/schema-views";
import type { ActorKind, JobEvent, JobState, RejectionKind } from "../fsm/table";
import type { Move } from "./write";

/** Who applies a transition: recorded in `job_events.actor_*`. */
export type Actor = { kind: ActorKind; id: string };

/** The job row as the write path returns it: a row of the `jobs` view (lib/db/schema-views.ts). */
export type JobRow = typeof jobs.$inferSelect;

/**
 * What `transition` is asked to apply: a Move of the write path (lib/jobs/write.ts) whose
 * `expected` state and version may be left out (a console page passes what it saw; omitted, the
 * move acts on the row as it is now). A worker's `attempt` is required when `actor.kind` is
 * "worker"; `error` goes with fail / abandon / stop, `result` with finish, `retryAt` with fail.
 */
export type TransitionInput = Omit<Move, "expected"> & { expected?: Move["expected"] };

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
export type ClaimedJob = Pick<
  JobRow,
  "id" | "tenantId" | "type" | "queue" | "priority" | "attempt" | "maxAttempts" | "stateVersion" | "params" | "createdAt"
> & {
  state: "claimed" | "running";
};

/** What a heartbeat learns about one job: its current state, or that the lease is lost. */
export type HeartbeatResult = Map<string, { state: JobState; stateVersion: number }>;
