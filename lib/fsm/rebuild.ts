import { IllegalTransition, step, submitted, type JobSnapshot, type Step } from "./machine";
import type { ActorKind, JobEvent, JobState, RunOutcome } from "./table";

/** One `job_events` row, as far as a rebuild needs it. */
export type LoggedEvent = {
  event: JobEvent;
  fromState: JobState | null;
  toState: JobState;
  actorKind: ActorKind;
  attempt: number;
  stateVersion: number;
};

/** The run record the log says one claimed attempt must have. */
export type RebuiltRun = { started: boolean; outcome: RunOutcome | null; closings: number };

export type Rebuilt = {
  /** The value the log folds to: the job row's state machine columns, or as far as the log folded. */
  job: JobSnapshot;
  /** Each claimed attempt's run record, by attempt. */
  runs: Map<number, RebuiltRun>;
  /** Every event folded: `job` is what the row must be. False at the first event the machine refuses or the log misstates. */
  complete: boolean;
  /** What is wrong with the log, each naming the version where it shows; empty for a sound log. */
  problems: string[];
};

/**
 * Rebuild a job from its event log: fold the events through the state machine into the value its
 * row must have and the run record each claimed attempt must have. The events are the source of
 * truth (DESIGN.md, "One write path"), so each logged step must be one the table allows and must
 * land where the log says it did. The integrity check compares the result with the stored rows.
 */
export function rebuild(events: readonly LoggedEvent[], maxAttemptsAtSubmit: number): Rebuilt {
  let job = submitted(maxAttemptsAtSubmit);
  const runs = new Map<number, RebuiltRun>();
  const problems: string[] = [];
  const stop = (problem: string): Rebuilt => ({ job, runs, complete: false, problems: [...problems, problem] });
  const [first, ...rest] = events;
  if (!first || first.event !== "submit" || first.stateVersion !== 0) return stop("the event log does not start with submit at version 0");
  for (const e of rest) {
    const at = `v${e.stateVersion}`;
    if (e.fromState !== job.state) return stop(`${at}: logged from ${e.fromState}, rebuilt state is ${job.state}`);
    let s: Step;
    try {
      s = step(job, e.event, e.actorKind);
    } catch (err) {
      if (err instanceof IllegalTransition) return stop(`${at}: ${err.message}`);
      throw err;
    }
    const n = s.next;
    if (n.state !== e.toState || n.attempt !== e.attempt || n.stateVersion !== e.stateVersion) {
      return stop(`${at}: logged ${e.toState}/attempt ${e.attempt}/v${e.stateVersion}, rebuilt ${n.state}/attempt ${n.attempt}/v${n.stateVersion}`);
    }
    if (s.opensRun) runs.set(n.attempt, { started: false, outcome: null, closings: 0 });
    const open = runs.get(job.attempt);
    if (s.startsRun && open) open.started = true;
    if (s.closesRun) {
      if (!open) problems.push(`${at}: ${e.event} closes a run for attempt ${job.attempt} that no claim opened`);
      else {
        open.closings++;
        open.outcome = s.closesRun;
      }
    }
    job = n;
  }
  return { job, runs, complete: true, problems };
}
