import type { ActorKind, JobEvent, JobState, RunOutcome } from "../fsm/table";

/**
 * "Why was this slow" as checked claims. The explanation of a job (lib/insight/explain.ts) is a
 * list of facts, each one a statement about the database that can be checked: a phase and its
 * duration, a comparison with a percentile, a count of jobs ahead, a pause with its actor and its
 * interval, a limit at capacity, a lost attempt and the job blamed for its worker's death, a
 * person's decision. The sentences staff and tenants read are rendered from these claims
 * (lib/insight/render.ts), and an independent checker (lib/insight/check.ts) verifies every claim
 * against the database with queries of its own.
 *
 * Times are epoch milliseconds; durations milliseconds.
 */

/** Where a job's time went, in phases a person names. */
export const PHASES = ["scheduled", "queue_wait", "claimed", "running", "paused", "retry_backoff", "lost_to_lease", "dead"] as const;
export type Phase = (typeof PHASES)[number];

/** Who reads the explanation: staff see the machinery's terms; a tenant sees none of them and nothing of other customers. */
export type Audience = "staff" | "tenant";

export type Who = { kind: ActorKind; id: string };

/** Jobs of the same type (and tenant) that succeeded before this one was submitted: a comparison that never moves. */
export type BaselineScope = {
  type: string;
  /** null: every tenant's jobs (staff only). */
  tenantId: string | null;
  /** The sample's window: jobs submitted in [from, to) that had succeeded by `to` (this job's submit). */
  from: number;
  to: number;
};

export type Percentiles = { p50: number; p95: number };

/** What a job's time is compared with. */
export type Baseline = {
  scope: BaselineScope;
  n: number;
  /** Submit to success. */
  total: Percentiles | null;
  /** The successful attempt's run (start to finish). */
  run: Percentiles | null;
  /** Submit (or its scheduled time) to its first claim. */
  wait: Percentiles | null;
  /** The type's size-like parameter (lib/jobs/job-types.ts `sizeParam`), when it has one. */
  input: (Percentiles & { param: string }) | null;
};

export type CompareMetric = "total" | "run" | "wait";

export type Claim =
  /** Time in a phase, from the job's own timeline. */
  | { kind: "phase"; phase: Phase; ms: number }
  /** The attempts that failed (the worker reported an error), by error class, and the last one. */
  | {
      kind: "failures";
      failed: number;
      attempts: number;
      maxAttempts: number;
      byClass: { errorClass: string; n: number }[];
      last: { attempt: number; errorClass: string | null; errorMessage: string | null; outcome: RunOutcome } | null;
      /** The job is dead because it failed: the worker gave it up (a permanent error, or no attempt left). */
      endedIt: boolean;
    }
  /** A person's (or the API's) decision about this job: given up, cancelled, replayed, paused, resumed, retried now. */
  | {
      kind: "decision";
      event: JobEvent;
      by: Who;
      at: number;
      from: JobState;
      attempt: number;
      maxAttempts: number;
      /** A replay: how the attempt before it had ended. */
      ended?: { attempt: number; outcome: RunOutcome; errorClass: string | null; errorMessage: string | null } | null;
      /** A replay: the person's move that ended the job, when one did (given up during its backoff), rather than an attempt's end. */
      endedBy?: { event: JobEvent; by: Who; at: number; from: JobState } | null;
    }
  /** Worker deaths blamed on this job (lib/jobs/poison.ts), and the other jobs they took down. */
  | { kind: "crashed_workers"; crashes: number; tookDown: number | null; poison: boolean }
  /** An attempt lost when its worker went silent. */
  | {
      kind: "lost_attempt";
      attempt: number;
      worker: string;
      /** Claimed and running time thrown away. */
      lostMs: number;
      /** The wait to be handed out again after it (the part not explained by a pause, a limit or no worker). */
      requeueMs: number;
      /** Of `requeueMs`: the crash backoff the supervisor held it for, as the job blamed for its worker's death (lib/jobs/poison.ts). */
      heldMs: number;
      /** The worker's last heartbeat, when it fell inside the attempt. */
      silentAt: number | null;
      neverStarted: boolean;
      /** Another job blamed for the worker's death: this job was a bystander. */
      blamedOn: { jobId: string; type: string } | null;
      /** The attempt was not counted against its budget (a bystander's rescue). */
      refunded: boolean;
    }
  /** Its queue was paused while it waited (`to` null: still paused at `asOf`). */
  | { kind: "queue_paused"; queue: string; from: number; to: number | null; by: Who | null; waitedMs: number }
  /** Its queue was at its concurrency limit while it waited (`to` null: still at it). */
  | { kind: "queue_limit"; queue: string; limit: number; from: number; to: number | null; waitedMs: number }
  /** No job of its queue was claimed, and no worker serving it was alive, while it waited. */
  | { kind: "no_worker"; queue: string; from: number; to: number; waitedMs: number }
  /** Its own turn: the wait not explained by a pause, a limit or a missing worker. */
  | { kind: "busy"; ms: number }
  /** Jobs of its queue waiting ahead of it when it was submitted. */
  | { kind: "ahead"; n: number; capped: boolean; own: number | null }
  /** Jobs of its queue submitted after it that were claimed before its first claim. */
  | { kind: "skipped"; n: number; capped: boolean; morePriority: number; otherTenants: number | null }
  /** A comparison with the baseline: `above` only when `value` exceeds the p95 it quotes. */
  | ({ kind: "compare"; metric: CompareMetric; value: number; above: boolean; n: number; scope: BaselineScope } & Percentiles)
  /** An input larger than the type's usual (its size-like parameter). */
  | ({ kind: "large_input"; param: string; value: number; n: number; scope: BaselineScope } & Percentiles)
  /** The delay it was submitted with (not_before). */
  | { kind: "scheduled"; until: number; ms: number };

export type ClaimKind = Claim["kind"];
export type ClaimOf<K extends ClaimKind> = Extract<Claim, { kind: K }>;

/** The cause the sentence leads with: the chip before it. */
export type CauseKind =
  | "none"
  | "nothing_unusual"
  | "failed"
  | "gave_up"
  | "cancelled"
  | "poison"
  | "crashed_workers"
  | "lost_attempt"
  | "slow_run"
  | "running"
  | "queue_paused"
  | "queue_limit"
  | "no_worker"
  | "jobs_ahead"
  | "retry_backoff"
  | "scheduled"
  | "paused"
  | "dead"
  | "claimed";

/** What one attempt is or was: not yet claimed, running, paused, ended. */
export type AttemptStatus = "waiting" | "claimed" | "running" | "paused" | "cancelling" | "ended";

export type AttemptRow = {
  attempt: number;
  worker: string | null;
  status: AttemptStatus;
  outcome: RunOutcome | null;
  errorClass: string | null;
  queueWaitMs: number;
  /** Claimed, its handler not started yet (the phase bar's "claimed, not started"). */
  claimedMs: number;
  /** Running (cancelling included): its run record's "ran for", from start to end, less `pausedMs`. */
  runningMs: number;
  pausedMs: number;
  lostMs: number;
  backoffMs: number;
  neverStarted: boolean;
};

export type Explanation = {
  /** The instant the explanation is true at: ongoing phases run to it. */
  asOf: number;
  totalMs: number;
  isOngoing: boolean;
  /** Only the newest events were loaded: the earliest phases may be missing. */
  isTruncated: boolean;
  phases: Record<Phase, number>;
  attempts: AttemptRow[];
  claims: Claim[];
  /** The claim the sentence leads with (an index into `claims`), or null when none does. */
  lead: number | null;
  cause: CauseKind;
  /** The cost of each cause that competed for the lead (the lead has the largest, unless a decision or the failures lead). */
  costs: Partial<Record<CauseKind, number>>;
};
