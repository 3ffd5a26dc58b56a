"use client";

import { Modal } from "@/components/modal";
import { numbers } from "@/components/numbers";
import { isDestructive } from "@/lib/fsm/machine";
import type { BulkPreviewData } from "../actions";
import { capitalize } from "./bulk-bar";
import { DANGER, PRIMARY, SECONDARY } from "@/components/fields";

export type DialogState =
  | { phase: "closed" }
  | { phase: "checking"; event: string }
  | { phase: "preview"; preview: BulkPreviewData; isStarting: boolean; error: string | null }
  | { phase: "error"; event: string; message: string };

type Props = { state: DialogState; onClose: () => void; onConfirm: (preview: BulkPreviewData) => void };

const plural = (n: number, one: string, many: string) => `${numbers.format(n)} ${n === 1 ? one : many}`;

/** The dry run, in a modal dialog: what would move and what would be skipped, before anything changes. */
export function BulkDialog({ state, onClose, onConfirm }: Props) {
  const isOpen = state.phase !== "closed";

  const event = state.phase === "preview" ? state.preview.event : state.phase === "closed" ? "" : state.event;
  return (
    <Modal isOpen={isOpen} labelledBy="bulk-dialog-title" onClose={onClose} className="max-w-lg">
      <div className="p-5">
        <h2 id="bulk-dialog-title" className="text-base font-semibold">
          {capitalize(event)}: dry run
        </h2>
        {state.phase === "checking" && (
          <p role="status" className="mt-3 text-sm text-neutral-600">
            Checking each selected job against the state machine…
          </p>
        )}
        {state.phase === "error" && (
          <p role="alert" className="mt-3 rounded-md bg-red-50 p-3 text-sm text-red-800">
            {state.message}
          </p>
        )}
        {state.phase === "preview" && <PreviewBody preview={state.preview} error={state.error} />}
      </div>
      <div className="flex justify-end gap-2 rounded-b-lg border-t border-neutral-200 bg-neutral-50 px-5 py-3">
        <button type="button" onClick={onClose} className={SECONDARY} data-safe>
          Back
        </button>
        {state.phase === "preview" && (
          <button
            type="button"
            onClick={() => onConfirm(state.preview)}
            disabled={state.preview.willApply === 0 || state.isStarting}
            className={isDestructive(state.preview.event) ? DANGER : PRIMARY}
          >
            {state.isStarting ? "Starting…" : `${capitalize(state.preview.event)} ${plural(state.preview.willApply, "job", "jobs")}`}
          </button>
        )}
      </div>
    </Modal>
  );
}

function PreviewBody({ preview, error }: { preview: BulkPreviewData; error: string | null }) {
  const skipped = preview.willSkip.reduce((n, s) => n + s.count, 0);
  return (
    <div className="mt-3 space-y-3 text-sm">
      <p className="text-neutral-600">Nothing has changed yet. Checked against the state machine just now: {preview.description}.</p>
      <dl className="grid grid-cols-2 gap-3">
        <div className="rounded-lg border border-emerald-200 bg-emerald-50 p-3">
          <dt className="text-xs font-medium text-emerald-800">Will move</dt>
          <dd className="text-2xl font-semibold text-emerald-950 tabular-nums" aria-label={`will move ${preview.willApply}`}>
            {numbers.format(preview.willApply)}
          </dd>
        </div>
        <div className="rounded-lg border border-neutral-200 bg-neutral-50 p-3">
          <dt className="text-xs font-medium text-neutral-600">Will skip</dt>
          <dd className="text-2xl font-semibold text-neutral-900 tabular-nums" aria-label={`will skip ${skipped}`}>
            {numbers.format(skipped)}
          </dd>
        </div>
      </dl>
      {preview.willSkip.length > 0 && (
        <ul aria-label="Why jobs will be skipped" className="space-y-1 text-neutral-700">
          {preview.willSkip.map((s) => (
            <li key={s.reason} className="flex justify-between gap-3">
              <span>{s.reason}</span>
              <span className="tabular-nums text-neutral-600">{numbers.format(s.count)}</span>
            </li>
          ))}
        </ul>
      )}
      {preview.capped && (
        <p className="rounded-md bg-amber-50 p-3 text-amber-900">
          More jobs match than one bulk action takes: only the newest {numbers.format(preview.total)} are included.
        </p>
      )}
      <p className="text-xs text-neutral-600">
        Only these jobs are moved, and each only if it is still as the dry run saw it: a job that moves in the meantime is refused, and jobs submitted
        later are not included.
      </p>
      {error && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {error}
        </p>
      )}
    </div>
  );
}
