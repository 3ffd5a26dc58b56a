import {
  HEARTBEAT_STATES,
  LEASED_STATES,
  SLOT_STATES,
  TERMINAL_STATES,
  TRANSITIONS,
  type ActorKind,
  type EventOf,
  type JobEvent,
  type JobState,
  type RunOutcome,
  type Transition,
} from "./table";

/** The part of a job row the state machine governs. */
export type JobSnapshot = {
  state: JobState;
  attempt: number;
  maxAttempts: number;
  stateVersion: number;
};

export class IllegalTransition extends Error {
  constructor(
    readonly state: JobState,
    readonly event: JobEvent,
    readonly reason: string,
  ) {
    super(`illegal: ${reason}`);
    this.name = "IllegalTransition";
  }
}

const byKey = new Map<string, Transition>(TRANSITIONS.filter((t) => t.from !== null).map((t) => [`${t.from}:${t.event}`, t]));

export function findTransition(state: JobState, event: JobEvent): Transition | undefined {
  return byKey.get(`${state}:${event}`);
}

export function eventsFrom(state: JobState): JobEvent[] {
  return TRANSITIONS.filter((t) => t.from === state).map((t) => t.event);
}

// Who may do what, read from the table. These answer for the table alone; whether one job can take
// the step now (attempts left, a run outcome for the actor) is `canApply` below.

/** One thing the table allows on an existing job: an actor of this kind may apply `event` from `from`. */
export type Move = { from: JobState; event: JobEvent; actor: ActorKind; transition: Transition };

/** Every move on an existing job, in the table's order: a transition with two actors is two moves. */
export const MOVES: readonly Move[] = TRANSITIONS.flatMap((t) => {
  const from = t.from;
  return from === null ? [] : t.actors.map((actor) => ({ from, event: t.event, actor, transition: t }));
});

const moveKey = (state: JobState | null, event: JobEvent, actor: ActorKind) => `${state}:${event}:${actor}`;
const allowed = new Set(TRANSITIONS.flatMap((t) => t.actors.map((a) => moveKey(t.from, t.event, a))));

/** Whether the table lets an actor of this kind apply `event` to a job in `state` (`null`: submit a new job). */
export const mayApply = (state: JobState | null, event: JobEvent, actor: ActorKind): boolean => allowed.has(moveKey(state, event, actor));

/** Events an actor of this kind may apply from `state`, in the table's order: what the console offers as buttons. */
export function eventsFor(state: JobState, actor: ActorKind): JobEvent[] {
  return MOVES.filter((m) => m.from === state && m.actor === actor).map((m) => m.event);
}

/** Whether an actor of this kind may apply `event` to an existing job in some state. */
export const isEventOf = <A extends ActorKind>(actor: A, event: JobEvent): event is EventOf<A> =>
  MOVES.some((m) => m.event === event && m.actor === actor);

/** The events an actor of this kind may apply to existing jobs, each once, in the table's order. */
export function eventsOf<A extends ActorKind>(actor: A): EventOf<A>[] {
  return [...new Set(MOVES.filter((m) => m.actor === actor).map((m) => m.event))].filter((e): e is EventOf<A> => isEventOf(actor, e));
}

/** The states from which an actor of this kind may apply `event`, in the table's order. */
export function statesFrom(event: JobEvent, actor: ActorKind): JobState[] {
  return MOVES.filter((m) => m.event === event && m.actor === actor).map((m) => m.from);
}

/** The kinds of actor that may move a job out of `state`, each once, in the table's order. */
export function actorsFrom(state: JobState): ActorKind[] {
  return [...new Set(MOVES.filter((m) => m.from === state).map((m) => m.actor))];
}

/** The kinds of actor whose transitions lead into `state`, each once, in the table's order. */
export function actorsInto(state: JobState): ActorKind[] {
  return [...new Set(TRANSITIONS.filter((t) => t.to === state).flatMap((t) => t.actors))];
}

const terminal = new Set<JobState>(TERMINAL_STATES);

/**
 * Events that can end a job without a result (into `dead` or `cancelled`, or on
 * the way there): the console asks before applying them. Derived from the table.
 */
const destructive = new Set<JobEvent>(
  TRANSITIONS.filter((t) => t.to === "dead" || t.to === "cancelled" || t.to === "cancelling").map((t) => t.event),
);
export const isDestructive = (e: JobEvent) => destructive.has(e);

/**
 * Events with a row that sets `not_before` again (`schedules`): after one, a job's `not_before` no
 * longer says when its submit asked it to start. Derived from the table.
 */
const rescheduling = new Set<JobEvent>(TRANSITIONS.filter((t) => t.schedules !== undefined).map((t) => t.event));
export const isRescheduling = (e: JobEvent) => rescheduling.has(e);

const leased = new Set<JobState>(LEASED_STATES);
const watched = new Set<JobState>(HEARTBEAT_STATES);
const slotted = new Set<JobState>(SLOT_STATES);

export const isTerminal = (s: JobState) => terminal.has(s);
export const isLeased = (s: JobState) => leased.has(s);
export const isHeartbeatWatched = (s: JobState) => watched.has(s);
export const holdsSlot = (s: JobState) => slotted.has(s);

/** A transition's full effect, resolved for one job and one actor. */
export type Step = {
  transition: Transition;
  next: JobSnapshot;
  /** The run record's outcome if this step closes the open run. */
  closesRun: RunOutcome | null;
  opensRun: boolean;
  startsRun: boolean;
  /** The job enters the heartbeat-watched set from outside it: restart the clock. */
  resetsHeartbeat: boolean;
};

/**
 * Resolve `event` against `job` for `actor`, or throw `IllegalTransition`.
 * Pure: returns the candidate next value and never changes `job`.
 */
export function step(job: JobSnapshot, event: JobEvent, actor?: ActorKind): Step {
  const t = findTransition(job.state, event);
  if (!t) {
    const why = terminal.has(job.state) ? `${job.state} is terminal` : `no transition from ${job.state}`;
    throw new IllegalTransition(job.state, event, `${why} on ${event}`);
  }
  if (actor && !mayApply(job.state, event, actor)) {
    throw new IllegalTransition(job.state, event, `a ${actor} may not ${event} a ${job.state} job`);
  }
  if (t.needsAttemptsLeft && job.attempt >= job.maxAttempts) {
    throw new IllegalTransition(job.state, event, `${event} needs attempts left (${job.attempt} of ${job.maxAttempts} used)`);
  }
  const next: JobSnapshot = {
    state: t.to,
    attempt: t.run === "open" ? job.attempt + 1 : job.attempt,
    // A replay extends the budget by one attempt when it is spent (as Oban's retry_job does).
    maxAttempts: event === "replay" ? Math.max(job.maxAttempts, job.attempt + 1) : t.refundsAttempt ? job.maxAttempts + 1 : job.maxAttempts,
    stateVersion: job.stateVersion + 1,
  };
  const run: Transition["run"] = t.run;
  let closesRun: RunOutcome | null = null;
  if (typeof run === "object") closesRun = (actor && run[actor]) ?? null;
  else if (run && run !== "open" && run !== "start") closesRun = run;
  if (typeof run === "object" && closesRun === null) {
    throw new IllegalTransition(job.state, event, `no run outcome for a ${actor ?? "unnamed actor"}'s ${event}`);
  }
  return {
    transition: t,
    next,
    closesRun,
    opensRun: run === "open",
    startsRun: run === "start",
    resetsHeartbeat: watched.has(t.to) && !watched.has(job.state),
  };
}

/** `step` without the details: the new value, or `IllegalTransition`. */
export function apply(job: JobSnapshot, event: JobEvent, actor?: ActorKind): JobSnapshot {
  return step(job, event, actor).next;
}

export function canApply(job: JobSnapshot, event: JobEvent, actor?: ActorKind): boolean {
  try {
    step(job, event, actor);
    return true;
  } catch (e) {
    if (e instanceof IllegalTransition) return false;
    throw e;
  }
}

/** The value a job has right after `submit`. */
export function submitted(maxAttempts: number): JobSnapshot {
  return { state: "queued", attempt: 0, maxAttempts, stateVersion: 0 };
}
