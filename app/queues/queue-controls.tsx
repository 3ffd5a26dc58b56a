"use client";

import { useId, useState, type FormEvent } from "react";
import { INPUT, PRIMARY, SECONDARY } from "@/components/fields";
import { IntegerField } from "@/components/form-field";
import { ActorCell } from "@/components/cells";
import { numbers } from "@/components/numbers";
import { TimeAgo } from "@/components/time-zone";
import { keys } from "@/lib/client/queries";
import { ResultNote, RowFailure, useAction } from "@/components/use-action";
import { changeQueueAction } from "./actions";
import type { QueueWire } from "./queues-view";

/** A row's buttons: pause or resume (operators), and the details under the row. */
export function QueueRowActions({
  queue,
  canOperate,
  isOpen,
  onToggle,
}: {
  queue: QueueWire;
  canOperate: boolean;
  isOpen: boolean;
  onToggle: () => void;
}) {
  const op = useAction(changeQueueAction, { invalidate: [keys.queues.all] });
  return (
    <div className="flex flex-col items-end gap-1.5">
      <div className="flex justify-end gap-2">
        {canOperate && (
          <button
            type="button"
            className={SECONDARY}
            disabled={op.pending}
            aria-label={`${queue.paused ? "Resume" : "Pause"} queue ${queue.name}`}
            onClick={() => op.run({ queue: queue.name, change: { kind: queue.paused ? "resume" : "pause" } })}
          >
            {op.pending ? "Saving…" : queue.paused ? "Resume" : "Pause"}
          </button>
        )}
        <button
          type="button"
          className={SECONDARY}
          aria-expanded={isOpen}
          aria-controls={isOpen ? `queue-${queue.name}-settings` : undefined}
          aria-label={`${canOperate ? "Settings" : "Details"} of queue ${queue.name}`}
          onClick={onToggle}
        >
          {canOperate ? "Settings" : "Details"}
        </button>
      </div>
      <RowFailure result={op.result} />
    </div>
  );
}

const CHANGE_WORDS: Record<string, (v: number | null) => string> = {
  pause: () => "paused",
  resume: () => "resumed",
  limit: (v) => `limit set to ${numbers.format(v ?? 0)}`,
  unlimit: () => "limit removed",
  fair: () => "made fair between tenants",
  unfair: () => "made first-come first-served",
};

/** Under a row: the settings form (operators), the workers serving the queue, and its latest changes. */
export function QueueDetail({ queue, now, canOperate }: { queue: QueueWire; now: number; canOperate: boolean }) {
  return (
    <div className="grid gap-4 py-2 md:grid-cols-3">
      {canOperate ? <SettingsForm queue={queue} /> : <Settings queue={queue} />}
      <section aria-label={`Workers serving ${queue.name}`}>
        <h3 className="mb-1 text-xs font-medium text-neutral-600">Workers serving it</h3>
        {queue.workers.length === 0 ? (
          <p className="text-sm text-neutral-600">No live worker claims from this queue.</p>
        ) : (
          <ul className="space-y-0.5 text-sm">
            {queue.workers.map((w) => (
              <li key={w.id} className="flex justify-between gap-3">
                <span className="truncate font-mono text-xs">{w.id}</span>
                <span className="text-xs whitespace-nowrap text-neutral-600 tabular-nums">
                  {w.free} of {w.concurrency} free
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label={`Changes to ${queue.name}`}>
        <h3 className="mb-1 text-xs font-medium text-neutral-600">Latest changes</h3>
        {queue.changes.length === 0 ? (
          <p className="text-sm text-neutral-600">Never changed: not paused, no limit, first-come first-served.</p>
        ) : (
          <ul className="space-y-1.5 text-sm">
            {queue.changes.map((c) => (
              <li key={`${c.at}-${c.event}`} className="flex items-start justify-between gap-3">
                <span>
                  <span className="block">{CHANGE_WORDS[c.event]?.(c.value) ?? c.event}</span>
                  <ActorCell kind={c.actorKind} id={c.actorId} />
                </span>
                <TimeAgo at={new Date(c.at)} now={now} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function Settings({ queue }: { queue: QueueWire }) {
  return (
    <dl className="space-y-1 text-sm">
      <dt className="text-xs font-medium text-neutral-600">Concurrency limit</dt>
      <dd>{queue.concurrencyLimit === null ? "none" : `${numbers.format(queue.concurrencyLimit)} jobs at once, across every worker`}</dd>
      <dd>
        <LimitNow queue={queue} limit={queue.concurrencyLimit} />
      </dd>
      <dt className="text-xs font-medium text-neutral-600">Fair between tenants</dt>
      <dd>{queue.fair ? "yes: tenants' jobs are claimed in turn" : "no: first come, first served"}</dd>
    </dl>
  );
}

/** The queue's jobs at work: claimed, running or cancelling (the states that take a slot of its limit; a paused job takes none). */
export const atWork = (q: Pick<QueueWire, "counts">) => q.counts.claimed.n + q.counts.running.n + q.counts.cancelling.n;
/** A capped queue whose jobs at work fill its limit while others wait: no queued job starts until one ends. */
export const atLimit = (q: Pick<QueueWire, "counts" | "concurrencyLimit">) =>
  q.concurrencyLimit !== null && atWork(q) >= q.concurrencyLimit && q.counts.queued.n > 0;

/**
 * What a limit means for the queue right now: its jobs at work (claimed, running or cancelling — the
 * ones that take a slot) against the limit, and its paused jobs, which hold their lease but no slot.
 * Said as a warning when the limit is full and jobs wait: none of them starts until a job at work ends.
 */
function LimitNow({ queue, limit }: { queue: QueueWire; limit: number | null }) {
  const working = atWork(queue);
  const paused = queue.counts.paused.n;
  const waiting = queue.counts.queued.n;
  const pausedNote = paused > 0 ? `; ${numbers.format(paused)} paused, holding no slot` : "";
  if (limit === null)
    return (
      <p className="text-xs text-neutral-600">
        Now {numbers.format(working)} at work{pausedNote}.
      </p>
    );
  const full = working >= limit && waiting > 0;
  return (
    <p role={full ? "status" : undefined} className={`text-xs ${full ? "font-medium text-red-800" : "text-neutral-600"}`}>
      {full
        ? `At its limit: ${numbers.format(working)} at work of ${numbers.format(limit)}, so none of its ${numbers.format(waiting)}${queue.counts.queued.capped ? "+" : ""} queued jobs starts until one ends${pausedNote}.`
        : `Now ${numbers.format(working)} of ${numbers.format(limit)} at work${pausedNote}.`}
    </p>
  );
}

/** The limit and fairness of one queue; each setting that changed is one action (and one audit row). */
function SettingsForm({ queue }: { queue: QueueWire }) {
  const id = useId();
  const op = useAction(changeQueueAction, { invalidate: [keys.queues.all] });
  const [limit, setLimit] = useState(queue.concurrencyLimit === null ? "" : String(queue.concurrencyLimit));
  const [fair, setFair] = useState(queue.fair);
  const wanted = limit.trim() === "" ? null : Number(limit);
  const limitChanged = wanted !== queue.concurrencyLimit;
  const fairChanged = fair !== queue.fair;

  function save(e: FormEvent) {
    e.preventDefault();
    // One change per call: the limit first, then fairness once the limit applied.
    const fairStep = () => op.run({ queue: queue.name, change: { kind: "fair", fair } });
    if (limitChanged && wanted !== null && !Number.isInteger(wanted)) return;
    if (limitChanged) op.run({ queue: queue.name, change: { kind: "limit", limit: wanted } }, fairChanged ? fairStep : undefined);
    else if (fairChanged) fairStep();
  }

  return (
    <form onSubmit={save} aria-label={`Settings of queue ${queue.name}`} className="space-y-3">
      <IntegerField
        id={`${id}-limit`}
        label="Concurrency limit"
        hint="(empty: none; across every worker)"
        min={1}
        max={100_000}
        value={limit}
        onChange={(e) => setLimit(e.currentTarget.value)}
        className={`${INPUT} max-w-40`}
      />
      <LimitNow queue={queue} limit={wanted !== null && Number.isInteger(wanted) && wanted >= 1 ? wanted : null} />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={fair} onChange={(e) => setFair(e.currentTarget.checked)} className="size-4" />
        Fair between tenants (claim their jobs in turn)
      </label>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className={PRIMARY} disabled={op.pending || (!limitChanged && !fairChanged)}>
          {op.pending ? "Saving…" : "Save settings"}
        </button>
      </div>
      <ResultNote result={op.result} />
    </form>
  );
}
