import { apply, IllegalTransition, submitted, type JobSnapshot } from "./machine";
import type { ActorKind, JobEvent, JobState } from "./table";

/** One `job_events` row, as far as replay needs it. */
export type LoggedEvent = {
  event: JobEvent;
  fromState: JobState | null;
  toState: JobState;
  actorKind: ActorKind;
  attempt: number;
  stateVersion: number;
};

export type ReplayResult = { ok: true; job: JobSnapshot } | { ok: false; atVersion: number; problem: string };

/**
 * Rebuild a job's state machine value from its event log. The events are the
 * source of truth: the result must equal the job row (state, attempt,
 * state_version), and every logged step must be one the table allows.
 */
export function replayEvents(events: readonly LoggedEvent[], maxAttemptsAtSubmit: number): ReplayResult {
  const [first, ...rest] = events;
  if (!first || first.event !== "submit") return { ok: false, atVersion: 0, problem: "the log does not start with submit" };
  let job = submitted(maxAttemptsAtSubmit);
  for (const e of rest) {
    if (e.fromState !== job.state) {
      return { ok: false, atVersion: e.stateVersion, problem: `logged from ${e.fromState}, replayed state is ${job.state}` };
    }
    try {
      job = apply(job, e.event, e.actorKind);
    } catch (err) {
      if (err instanceof IllegalTransition) return { ok: false, atVersion: e.stateVersion, problem: err.message };
      throw err;
    }
    if (job.state !== e.toState || job.attempt !== e.attempt || job.stateVersion !== e.stateVersion) {
      return {
        ok: false,
        atVersion: e.stateVersion,
        problem: `logged ${e.toState}/attempt ${e.attempt}/v${e.stateVersion}, replayed ${job.state}/attempt ${job.attempt}/v${job.stateVersion}`,
      };
    }
  }
  return { ok: true, job };
}
