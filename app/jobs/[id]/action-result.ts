import { formatMoment } from "@/lib/time-format";
import type { ActorKind, JobEvent, JobState } from "@/lib/fsm/table";
import type { Rejection } from "@/lib/jobs/types";
import type { ErrorBody, Result } from "@/lib/result";

/** The job as the write path left it, after a refusal; `at` is an ISO time. */
export type CurrentJob = {
  state: JobState;
  stateVersion: number;
  attempt: number;
  movedBy: { event: JobEvent; actorKind: ActorKind; actorId: string; at: string } | null;
};

/** A job action's refusal: the one error body, and after a refusal of the write path the job as it is now. */
export type JobActionError = ErrorBody & { current?: CurrentJob };

/** What a job action answers: the new state, or a refusal a person can act on. */
export type JobActionResult = Result<{ event: JobEvent; from: JobState; state: JobState; stateVersion: number }, JobActionError>;

/**
 * A refusal from the write path in words: who moved the job first and what it
 * is now ("Refused: worker w-3 applied finish at 12:01:03 UTC; the job is now
 * succeeded (version 4)."), the time in the viewer's zone `tz`.
 */
export function describeRejection(r: Rejection, event: JobEvent, now: number, tz = "UTC"): JobActionError {
  const current: CurrentJob | undefined = r.current
    ? {
        state: r.current.state,
        stateVersion: r.current.stateVersion,
        attempt: r.current.attempt,
        movedBy: r.current.movedBy && { ...r.current.movedBy, at: r.current.movedBy.at.toISOString() },
      }
    : undefined;
  const is = current ? `the job is now ${current.state} (version ${current.stateVersion})` : "";
  let message: string;
  if (r.kind === "not_found") {
    message = "Refused: this job no longer exists.";
  } else if (r.kind === "conflict" && current?.movedBy) {
    const m = current.movedBy;
    message = `Refused: ${m.actorKind} ${m.actorId} applied ${m.event} ${formatMoment(new Date(m.at), now, tz)}; ${is}. Nothing was changed.`;
  } else if (r.kind === "conflict") {
    message = `Refused: the job changed since this page showed it; ${is}. Nothing was changed.`;
  } else if (r.kind === "drift") {
    message = `Refused: the job's row was changed outside the write path (recorded as an invariant violation); ${is}. Nothing was changed.`;
  } else {
    message = `Refused: ${event} is not allowed here: ${r.reason}.${is ? ` ${capitalize(is)}.` : ""}`;
  }
  return { code: r.kind, message, current };
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
