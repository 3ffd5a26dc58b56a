import { holdsSlot, isLeased, isTerminal, isHeartbeatWatched, findTransition, mayApply, MOVES } from "../fsm/machine";
import type { ActorKind, JobEvent, JobState, RunOutcome, Transition } from "../fsm/table";

/**
 * What one transition does to the stored rows, resolved once from lib/fsm/table.ts for a
 * (from, event, actor): the columns of the guarded write (lib/jobs/write.ts) are these, so the
 * table stays the one source of the statements that apply it.
 */
export type Shape = {
  transition: Transition;
  from: JobState;
  event: JobEvent;
  actor: ActorKind;
  to: JobState;
  /** The job leaves jobs_live (a terminal state), or comes back to it (replay). */
  fromDone: boolean;
  toDone: boolean;
  /** 1 for the claim: the attempt is the fencing token, it only ever grows. */
  attemptInc: 0 | 1;
  /** 0 keep; 1 replay: the budget grows to at least one attempt more; 2 refund: one more. */
  maxRule: 0 | 1 | 2;
  needsAttemptsLeft: boolean;
  leasedAfter: boolean;
  /** What the move does to a capped queue's count of slots taken (lib/fsm/table.ts, SLOT_STATES): -1 gives one back, +1 takes one. */
  slotDelta: -1 | 0 | 1;
  opensRun: boolean;
  startsRun: boolean;
  /** The outcome the open attempt ends with, or null. */
  closes: RunOutcome | null;
  resetsHeartbeat: boolean;
  /** 0 keep not_before; 1 now (claimable at once); 2 the retry time the worker chose. */
  notBeforeRule: 0 | 1 | 2;
  /**
   * A worker's own transitions are stored on its attempt (claim, start, the closing one); every
   * other actor's in job_log.
   */
  onAttempt: boolean;
  notifies: boolean;
};

const shapes = new Map<JobState, Map<JobEvent, Map<ActorKind, Shape | null>>>();

/** The shape of `event` from `from` by `actor`, or null when the table has no such move for that actor (one object per move). */
export function shapeOf(from: JobState, event: JobEvent, actor: ActorKind): Shape | null {
  let byEvent = shapes.get(from);
  if (!byEvent) shapes.set(from, (byEvent = new Map()));
  let byActor = byEvent.get(event);
  if (!byActor) byEvent.set(event, (byActor = new Map()));
  let s = byActor.get(actor);
  if (s === undefined) byActor.set(actor, (s = resolve(from, event, actor)));
  return s;
}

function resolve(from: JobState, event: JobEvent, actor: ActorKind): Shape | null {
  const t = findTransition(from, event);
  if (!t || !mayApply(from, event, actor)) return null;
  const run = t.run;
  let closes: RunOutcome | null = null;
  if (typeof run === "object") closes = run[actor] ?? null;
  else if (run && run !== "open" && run !== "start") closes = run;
  if (typeof run === "object" && closes === null) return null;
  return {
    transition: t,
    from,
    event,
    actor,
    to: t.to,
    fromDone: isTerminal(from),
    toDone: isTerminal(t.to),
    attemptInc: run === "open" ? 1 : 0,
    maxRule: event === "replay" ? 1 : t.refundsAttempt ? 2 : 0,
    needsAttemptsLeft: t.needsAttemptsLeft === true,
    leasedAfter: isLeased(t.to),
    slotDelta: ((holdsSlot(t.to) ? 1 : 0) - (holdsSlot(from) ? 1 : 0)) as -1 | 0 | 1,
    opensRun: run === "open",
    startsRun: run === "start",
    closes,
    resetsHeartbeat: isHeartbeatWatched(t.to) && !isHeartbeatWatched(from),
    notBeforeRule: t.schedules === "now" ? 1 : t.schedules === "retry_at" ? 2 : 0,
    onAttempt: actor === "worker",
    notifies: t.to === "queued",
  };
}

// The storage model's assumptions about the table, checked when this module loads: a worker's
// transitions are exactly its claim, its start and the one that closes its attempt (so its attempt
// row can carry them all); only a claim opens a run; a replay is the only way out of a terminal state.
for (const { from, event, actor, transition: t } of MOVES) {
  const s = shapeOf(from, event, actor);
  if (!s) throw new Error(`table: ${from} ${event} by ${actor} has no run outcome`);
  if (actor === "worker" && !s.opensRun && !s.startsRun && !s.closes) {
    throw new Error(`table: a worker's ${event} from ${from} neither opens, starts nor closes its attempt`);
  }
  if (s.opensRun && (actor !== "worker" || from !== "queued")) throw new Error(`table: only a worker's claim from queued opens a run`);
  if (s.fromDone && s.toDone) throw new Error(`table: ${from} → ${t.to} moves between terminal states`);
}
