import { formatMoment } from "@/lib/time-format";
import type { JobEvent } from "@/lib/fsm/table";
import type { Rejection } from "@/lib/jobs/types";

/**
 * A refusal from the write path in words: who moved the job first and what it
 * is now ("Refused: worker w-3 applied finish at 12:01:03 UTC; the job is now
 * succeeded (version 4)."), the time in the viewer's zone `tz`.
 */
export function describeRejection(r: Rejection, event: JobEvent, now: number, tz = "UTC"): string {
  const current = r.current;
  const is = current ? `the job is now ${current.state} (version ${current.stateVersion})` : "";
  if (r.kind === "not_found") return "Refused: this job no longer exists.";
  if (r.kind === "conflict" && current?.movedBy) {
    const m = current.movedBy;
    return `Refused: ${m.actorKind} ${m.actorId} applied ${m.event} ${formatMoment(m.at, now, tz)}; ${is}. Nothing was changed.`;
  }
  if (r.kind === "conflict") return `Refused: the job changed since this page showed it; ${is}. Nothing was changed.`;
  if (r.kind === "drift")
    return `Refused: the job's row was changed outside the write path (recorded as an invariant violation); ${is}. Nothing was changed.`;
  return `Refused: ${event} is not allowed here: ${r.reason}.${is ? ` ${capitalize(is)}.` : ""}`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
