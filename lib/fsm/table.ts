// The job state machine as data. This file is the single source of truth for
// states, events, who may apply them and what each transition does to the row
// and to the attempt's run record. The Postgres enums, CHECK constraints, the
// write path, the supervisor, the console's buttons and the diagram all read it.

/**
 * Job states, in the order the console shows them. Each comment says who moves
 * a job out of that state.
 */
export const STATES = [
  /** Waiting for a worker; claimable once `not_before <= now()`. Left by a worker's claim or a cancel. */
  "queued",
  /** A worker holds the lease but has not started. Left by the worker (start), the supervisor (reclaim, abandon) or a cancel. */
  "claimed",
  /** Executing under the lease, heartbeating. Left by the worker, the supervisor, or an operator (pause) or a cancel. */
  "running",
  /** Halted by an operator; the worker holds at a safe point. Left by an operator (resume, abandon) or a cancel. */
  "paused",
  /** Cancel requested while running; the worker stops at its next checkpoint. Left by the worker or the supervisor. */
  "cancelling",
  /** An attempt failed; waits until `not_before`. Left by the supervisor (retry), an operator or a cancel. */
  "retry_wait",
  /** Terminal: the job ran to completion and its result is stored. */
  "succeeded",
  /** Terminal: attempts exhausted, a permanent error, or given up by an operator. Only an operator's replay leaves it. */
  "dead",
  /** Terminal: withdrawn. */
  "cancelled",
] as const;
export type JobState = (typeof STATES)[number];

export const EVENTS = [
  "submit",
  "claim",
  "start",
  "reclaim",
  "cancel",
  "abandon",
  "finish",
  "fail",
  "pause",
  "resume",
  "stop",
  "retry",
  "replay",
  "release",
  "rescue",
] as const;
export type JobEvent = (typeof EVENTS)[number];

/** Whether a string from outside (a URL, a request) names an event of the table. */
export const isJobEvent = (s: unknown): s is JobEvent => (EVENTS as readonly unknown[]).includes(s);

export const ACTOR_KINDS = ["api", "tenant", "operator", "worker", "supervisor"] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** How an attempt's run record ended. */
export const RUN_OUTCOMES = ["succeeded", "failed", "lease_expired", "cancelled", "abandoned", "released"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/**
 * Why the write path refused a transition: someone moved the job first
 * (conflict), the table does not allow it (illegal), or the row was written
 * outside the write path (drift).
 */
export const REJECTION_KINDS = ["conflict", "illegal", "drift"] as const;
export type RejectionKind = (typeof REJECTION_KINDS)[number];

export const TERMINAL_STATES = ["succeeded", "dead", "cancelled"] as const satisfies readonly JobState[];

/** States in which a worker holds the lease (`lease_owner` is set). */
export const LEASED_STATES = ["claimed", "running", "paused", "cancelling"] as const satisfies readonly JobState[];

/**
 * States whose heartbeat the supervisor watches. A paused job's worker is held
 * at a safe point, so it is not reclaimed while paused; `resume` restarts the
 * clock (see `heartbeat` below).
 */
export const HEARTBEAT_STATES = ["claimed", "running", "cancelling"] as const satisfies readonly JobState[];

/**
 * States that take one of a capped queue's slots (its concurrency limit counts them): the worker
 * is doing the job's work. A paused job's worker holds at a safe point and does none, so a pause
 * gives the slot back and a resume takes one again, past the limit if need be (an operator asked
 * for it). Were paused jobs counted, jobs an operator paused could hold every slot and stop the queue.
 */
export const SLOT_STATES = HEARTBEAT_STATES;

/**
 * What a transition does to the attempt's run record:
 * - "open": a new run record for the new attempt (claim);
 * - "start": the open run's started_at;
 * - an outcome, or an outcome per actor kind: closes the open run with it.
 */
export type RunEffect = "open" | "start" | RunOutcome | Partial<Record<ActorKind, RunOutcome>>;

export type Transition = {
  /** `null` only for `submit`, which creates the job. */
  from: JobState | null;
  event: JobEvent;
  to: JobState;
  /** Who may apply it. A worker's write is always fenced by its attempt and lease owner. */
  actors: readonly ActorKind[];
  /** Only while `attempt < max_attempts`. */
  needsAttemptsLeft?: true;
  /**
   * The attempt does not count against the budget: `max_attempts` grows by one.
   * The attempt number itself never goes back (it is the fencing token, and
   * the run record's key), so the refund is on the budget side.
   */
  refundsAttempt?: true;
  run?: RunEffect;
  /** Sets `not_before`: to now (claimable at once) or to the retry time its actor chose (a worker's backoff, the supervisor's crash backoff). */
  schedules?: "now" | "retry_at";
  /** Plain words for the console and the diagram. */
  note: string;
};

/**
 * A stale lease of a worker job, with attempts left: the supervisor hands it back. The job blamed for
 * the worker's death (`reclaim`) spends its attempt and waits its crash backoff; a bystander of
 * another job's crash (`rescue`) goes back at once, ahead of it, refunded (lib/jobs/poison.ts).
 */
function leaseLost<F extends "claimed" | "running">(from: F) {
  return [
    {
      from,
      event: "reclaim",
      to: "queued",
      actors: ["supervisor"],
      needsAttemptsLeft: true,
      run: "lease_expired",
      schedules: "retry_at",
      note: "heartbeat stale, attempts remain; handed out again after the crash backoff",
    },
    {
      from,
      event: "rescue",
      to: "queued",
      actors: ["supervisor"],
      refundsAttempt: true,
      run: "lease_expired",
      schedules: "now",
      note: "its worker died and another job is blamed for the crash; the attempt is refunded",
    },
  ] as const satisfies readonly Transition[];
}

const ROWS = [
  {
    from: null,
    event: "submit",
    to: "queued",
    actors: ["api", "tenant", "operator", "supervisor"],
    note: "attempt 0, version 0; the supervisor submits a periodic schedule's ticks",
  },
  {
    from: "queued",
    event: "claim",
    to: "claimed",
    actors: ["worker"],
    needsAttemptsLeft: true,
    run: "open",
    note: "attempt + 1 in the claiming UPDATE; lease taken; run record opened",
  },
  { from: "queued", event: "cancel", to: "cancelled", actors: ["tenant", "operator"], note: "" },
  { from: "claimed", event: "start", to: "running", actors: ["worker"], run: "start", note: "run started" },
  {
    from: "claimed",
    event: "release",
    to: "queued",
    actors: ["worker"],
    refundsAttempt: true,
    run: "released",
    schedules: "now",
    note: "a draining worker hands back a job it never started; the attempt is refunded",
  },
  ...leaseLost("claimed"),
  { from: "claimed", event: "cancel", to: "cancelled", actors: ["tenant", "operator"], run: "cancelled", note: "" },
  { from: "claimed", event: "abandon", to: "dead", actors: ["supervisor"], run: "lease_expired", note: "stale on the last attempt" },
  { from: "running", event: "finish", to: "succeeded", actors: ["worker"], run: "succeeded", note: "result stored" },
  {
    from: "running",
    event: "fail",
    to: "retry_wait",
    actors: ["worker"],
    needsAttemptsLeft: true,
    run: "failed",
    schedules: "retry_at",
    note: "not_before = now + backoff",
  },
  {
    from: "running",
    event: "abandon",
    to: "dead",
    actors: ["worker", "supervisor"],
    run: { worker: "failed", supervisor: "lease_expired" },
    note: "permanent error, or the last attempt failed or went stale",
  },
  { from: "running", event: "pause", to: "paused", actors: ["operator"], note: "" },
  ...leaseLost("running"),
  { from: "running", event: "cancel", to: "cancelling", actors: ["tenant", "operator"], note: "the worker stops at its next checkpoint" },
  { from: "paused", event: "resume", to: "running", actors: ["operator"], note: "heartbeat_at = now(): a worker that is gone is reclaimed later" },
  { from: "paused", event: "abandon", to: "dead", actors: ["operator"], run: "abandoned", note: "" },
  { from: "paused", event: "cancel", to: "cancelled", actors: ["tenant", "operator"], run: "cancelled", note: "" },
  { from: "cancelling", event: "stop", to: "cancelled", actors: ["worker"], run: "cancelled", note: "the worker stopped at a checkpoint" },
  { from: "cancelling", event: "finish", to: "succeeded", actors: ["worker"], run: "succeeded", note: "the worker finished first: it wins cleanly" },
  { from: "cancelling", event: "fail", to: "cancelled", actors: ["worker"], run: "failed", note: "" },
  { from: "cancelling", event: "reclaim", to: "cancelled", actors: ["supervisor"], run: "lease_expired", note: "heartbeat stale" },
  {
    from: "retry_wait",
    event: "retry",
    to: "queued",
    actors: ["supervisor", "operator"],
    schedules: "now",
    note: "not_before passed, or an operator's retry now",
  },
  { from: "retry_wait", event: "abandon", to: "dead", actors: ["operator"], note: "" },
  { from: "retry_wait", event: "cancel", to: "cancelled", actors: ["tenant", "operator"], note: "" },
  { from: "dead", event: "replay", to: "queued", actors: ["operator"], schedules: "now", note: "history kept; the attempt budget is extended" },
] as const satisfies readonly Transition[];

/** The table, each row a `Transition`: its optional fields and its actors read without a cast. */
export const TRANSITIONS: readonly Transition[] = ROWS;

type EventOfRow<T, A extends ActorKind> = T extends { from: JobState; event: infer E; actors: readonly (infer K)[] }
  ? A extends K
    ? E
    : never
  : never;
/** The events an actor of kind `A` may apply to an existing job, as a type read from the table (`EventOf<"operator">`). */
export type EventOf<A extends ActorKind> = EventOfRow<(typeof ROWS)[number], A>;
