"use client";

import { useRef, useState } from "react";
import { useAction } from "@/components/use-action";
import { keys } from "@/lib/client/queries";
import { actorsFrom, eventsFor, eventsFrom, findTransition, isDestructive } from "@/lib/fsm/machine";
import type { ActorKind, JobEvent, JobState } from "@/lib/fsm/table";
import type { BulkEvent } from "@/lib/jobs/bulk";
import type { JobRow } from "@/lib/jobs/types";
import { applyOperationAction } from "@/app/_operation/actions";
import { OperationDialog } from "@/app/_operation/operation-dialog";
import { OperationResultView } from "@/app/_operation/operation-result";
import type { OperationRequest } from "@/app/_operation/types";

/** Button words where the event's own name is not what a person would say. */
const LABELS: Partial<Record<JobEvent, string>> = { retry: "Retry now" };

const labelOf = (e: JobEvent) => LABELS[e] ?? e.charAt(0).toUpperCase() + e.slice(1);

/**
 * The actions the transition table allows this actor from the job's current state: the one
 * operation path (app/_operation) on a selection of this job. Each click sends the state and
 * version on screen, so a page that has fallen behind is refused by the write path instead of
 * overwriting. An event that throws work away is asked first; a replay shows its dry run.
 */
export function JobActions({ job, actorKind }: { job: Pick<JobRow, "id" | "state" | "stateVersion" | "type">; actorKind: ActorKind }) {
  const now = useAction(applyOperationAction, { invalidate: [keys.jobs.all, keys.counts()] });
  const [asking, setAsking] = useState<OperationRequest | null>(null);
  const asked = useRef(0);
  // Only events an operator or a tenant applies to a job are offered here (never a worker's).
  const events = eventsFor(job.state, actorKind) as BulkEvent[];

  const onClick = (event: BulkEvent) => {
    now.clear();
    const selection = { kind: "ids" as const, ids: [job.id] };
    const expected = { state: job.state, version: job.stateVersion };
    if (event === "replay" || isDestructive(event)) {
      const question = event === "replay" ? undefined : describe(event, expected.state, job.type);
      setAsking({ key: ++asked.current, operation: event, selection, expected, question, title: `${labelOf(event)} this job?` });
    } else {
      now.run({ operation: event, selection, jobs: [[job.id, expected.state, expected.version]] });
    }
  };

  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-3">
      <div role="group" aria-label="Job actions" className="flex flex-wrap items-center gap-2">
        {events.length === 0 && (
          <p className="text-sm text-neutral-600">
            {eventsFrom(job.state).length === 0
              ? `No actions: ${job.state} is final, and no transition leaves it.`
              : `No actions: only ${actorsFrom(job.state).join(" or ")} may move a ${job.state} job.`}
          </p>
        )}
        {events.map((event) => (
          <button
            key={event}
            type="button"
            disabled={now.pending}
            onClick={() => onClick(event)}
            className={`rounded-md border px-3 py-1.5 text-sm font-medium shadow-xs disabled:cursor-not-allowed disabled:opacity-50 ${
              isDestructive(event)
                ? "border-red-300 bg-white text-red-700 hover:bg-red-50"
                : "border-neutral-300 bg-white text-neutral-800 hover:bg-neutral-50"
            }`}
          >
            {labelOf(event)}
          </button>
        ))}
      </div>
      <div role="status" aria-live="polite" aria-label="Action outcome" className="min-h-5 text-sm">
        {now.pending ? (
          <span className="text-neutral-600">Applying…</span>
        ) : now.result?.ok ? (
          <OperationResultView result={now.result.data} isOnJobPage />
        ) : (
          now.result && <span className="font-medium text-red-800">{now.result.error.message}</span>
        )}
      </div>
      {asking && <OperationDialog key={asking.key} request={asking} onClose={() => setAsking(null)} isOnJobPage />}
    </div>
  );
}

/** The question's words, from the transition table: where the job goes and what that does. */
function describe(event: JobEvent, state: JobState, type: string) {
  const t = findTransition(state, event);
  if (!t) return `This ${type} job is ${state}.`;
  const isFinal = eventsFrom(t.to).length === 0;
  return `This ${type} job is ${state}; it will become ${t.to}${isFinal ? ", which is final" : ""}${t.note ? `: ${t.note}` : ""}.`;
}
