"use client";

import { useState, useTransition } from "react";
import { eventsFor, eventsFrom, findTransition, isDestructive } from "@/lib/fsm/machine";
import { TRANSITIONS, type ActorKind, type JobEvent, type JobState } from "@/lib/fsm/table";
import type { JobRow } from "@/lib/jobs/types";
import { ReplayDialog } from "@/app/_replay/replay-dialog";
import { applyJobEventAction } from "./actions";
import type { JobActionResult } from "./action-result";
import { ConfirmDialog } from "./confirm-dialog";

/** Button words where the event's own name is not what a person would say. */
const LABELS: Partial<Record<JobEvent, string>> = { retry: "Retry now" };
/** Events that throw work away: asked twice. */

const labelOf = (e: JobEvent) => LABELS[e] ?? e.charAt(0).toUpperCase() + e.slice(1);

/** What the person decided on: the event and the state and version the page showed them. */
type Intent = { event: JobEvent; state: JobState; version: number };
type Outcome = { result: JobActionResult; at: number };

/**
 * The actions the transition table allows this actor from the job's current
 * state. Each click sends the state and version on screen, so a page that has
 * fallen behind is refused by the write path instead of overwriting.
 */
export function JobActions({
  job,
  actorKind,
  onSettled,
}: {
  job: Pick<JobRow, "id" | "state" | "stateVersion" | "type">;
  actorKind: ActorKind;
  onSettled: () => void;
}) {
  const [isPending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState<Intent | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // Replay has one path everywhere (app/_replay): its dry run, its warnings, edited params, its progress.
  const [replays, setReplays] = useState(0);
  const [isReplaying, setIsReplaying] = useState(false);
  const events = eventsFor(job.state, actorKind);

  const apply = (intent: Intent) => {
    setConfirming(null);
    startTransition(async () => {
      const result = await applyJobEventAction({
        jobId: job.id,
        event: intent.event,
        expectedState: intent.state,
        expectedVersion: intent.version,
      });
      setOutcome({ result, at: Date.now() });
      onSettled();
    });
  };
  const onClick = (event: JobEvent) => {
    if (event === "replay") {
      setOutcome(null);
      setReplays((n) => n + 1);
      setIsReplaying(true);
      return;
    }
    const intent = { event, state: job.state, version: job.stateVersion };
    if (isDestructive(event)) setConfirming(intent);
    else apply(intent);
  };

  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-3">
      <div role="group" aria-label="Job actions" className="flex flex-wrap items-center gap-2">
        {events.length === 0 && (
          <p className="text-sm text-neutral-600">
            {eventsFrom(job.state).length === 0
              ? `No actions: ${job.state} is final, and no transition leaves it.`
              : `No actions: only ${ownersOf(job.state).join(" or ")} may move a ${job.state} job.`}
          </p>
        )}
        {events.map((event) => (
          <button
            key={event}
            type="button"
            disabled={isPending}
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
        {isPending ? <span className="text-neutral-600">Applying…</span> : outcome && <OutcomeMessage key={outcome.at} result={outcome.result} />}
      </div>
      {isReplaying && (
        <ReplayDialog
          key={replays}
          request={{ key: replays, selection: { kind: "ids", ids: [job.id] }, title: "Replay this job" }}
          onClose={() => setIsReplaying(false)}
          onApplied={onSettled}
        />
      )}
      {confirming && (
        <ConfirmDialog
          title={`${labelOf(confirming.event)} this job?`}
          body={describe(confirming, job.type)}
          confirmLabel={`Yes, ${confirming.event}`}
          onConfirm={() => apply(confirming)}
          onClose={() => setConfirming(null)}
        />
      )}
    </div>
  );
}

/** Who the table lets move a job out of `state`. */
function ownersOf(state: JobState): ActorKind[] {
  return [...new Set(TRANSITIONS.filter((t) => t.from === state).flatMap((t): readonly ActorKind[] => t.actors))];
}

/** The confirmation's words, from the transition table: where the job goes and what that does. */
function describe(intent: Intent, type: string) {
  const t = findTransition(intent.state, intent.event);
  if (!t) return `This ${type} job is ${intent.state}.`;
  const isFinal = eventsFrom(t.to).length === 0;
  return `This ${type} job is ${intent.state}; it will become ${t.to}${isFinal ? ", which is final" : ""}${t.note ? `: ${t.note}` : ""}.`;
}

function OutcomeMessage({ result }: { result: JobActionResult }) {
  if (result.ok) {
    const { event, state, stateVersion } = result.data;
    return (
      <span className="font-medium text-emerald-800">
        Applied: {event} → {state} <span className="font-normal text-emerald-700">(version {stateVersion})</span>
      </span>
    );
  }
  return <span className="font-medium text-red-800">{result.error.message}</span>;
}
