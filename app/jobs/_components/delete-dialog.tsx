"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { DANGER, Field, INPUT, SECONDARY } from "@/components/fields";
import { Modal } from "@/components/modal";
import { numbers, plural } from "@/components/numbers";
import { keys } from "@/lib/client/queries";
import type { Result } from "@/lib/result";
import type { JobFilters } from "@/lib/jobs/filters";
import { deleteFinishedJobsAction, previewDeleteAction, type DeletePreviewData } from "../delete-actions";
import { searchOf } from "./url";

/** What to delete: jobs picked on the page, everything matching the list's filter, or a clean-up of the filter's old finished jobs. */
export type DeleteTarget = { kind: "ids"; ids: string[] } | { kind: "filter"; search: string } | { kind: "clean"; filters: JobFilters };

/** An action's refusal as an Error whose message a person can act on; its data and message otherwise. */
async function unwrap<T>(p: Promise<Result<T>>): Promise<T & { message: string }> {
  const r = await p.catch(() => null);
  if (!r) throw new Error(FAILED);
  if (!r.ok) throw new Error(r.error.message);
  return { ...r.data, message: r.message ?? "" };
}

type Phase =
  | { phase: "choose" }
  | { phase: "checking" }
  | { phase: "preview"; preview: DeletePreviewData; isDeleting: boolean; error: string | null }
  | { phase: "done"; message: string }
  | { phase: "error"; message: string };

const FAILED = "Could not reach the server; nothing was deleted. Try again.";
const DAY = 86_400_000;

/**
 * Delete finished jobs with their history, under retention's rules: a dry run first (how many go,
 * with how many runs and events; which stay and why), then a confirm that deletes exactly those.
 * A clean-up first asks how old: the finished jobs of the list's filter that finished before then,
 * oldest first.
 */
export function DeleteDialog({ target, onClose, onDeleted }: { target: DeleteTarget; onClose: () => void; onDeleted: () => void }) {
  const client = useQueryClient();
  const dialog = useId();
  const [days, setDays] = useState("30");
  const [selection, setSelection] = useState<{ ids: string[] } | { search: string } | null>(
    target.kind === "ids" ? { ids: target.ids } : target.kind === "filter" ? { search: target.search } : null,
  );
  // The dry run is a read that must not repeat by itself: a second one could count other jobs.
  const preview = useQuery({
    queryKey: ["jobs-delete", "dry-run", dialog, selection],
    queryFn: () => unwrap(previewDeleteAction({ selection: selection! })),
    enabled: selection !== null,
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
  });
  const remove = useMutation({
    mutationFn: (p: DeletePreviewData) => unwrap(deleteFinishedJobsAction({ ids: p.ids, description: p.description.slice(0, 300) })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.jobs.all });
      onDeleted();
    },
  });

  function clean(now: number) {
    if (target.kind !== "clean") return;
    const n = Number(days);
    if (!Number.isInteger(n) || n < 1) return;
    const { state: _tab, after: _a, before: _b, sort: _s, phrase: _p, ...rest } = target.filters;
    void [_tab, _a, _b, _s, _p];
    setSelection({ search: searchOf({ ...rest, finishedTo: new Date(now - n * DAY), sort: "oldest" }) });
  }

  const state: Phase =
    selection === null
      ? { phase: "choose" }
      : remove.isSuccess
        ? { phase: "done", message: remove.data.message }
        : preview.isPending
          ? { phase: "checking" }
          : preview.isError
            ? { phase: "error", message: preview.error.message }
            : { phase: "preview", preview: preview.data, isDeleting: remove.isPending, error: remove.error?.message ?? null };
  const confirm = (p: DeletePreviewData) => remove.mutate(p);

  const title = target.kind === "clean" ? "Clean up finished jobs" : "Delete finished jobs";
  return (
    <Modal isOpen labelledBy="delete-title" onClose={onClose} className="max-w-lg">
      <div className="space-y-3 p-5 text-sm">
        <h2 id="delete-title" className="text-base font-semibold">
          {title}
        </h2>
        {state.phase === "choose" && (
          <form
            className="space-y-3"
            onSubmit={(e) => {
              e.preventDefault();
              clean(performance.timeOrigin + e.timeStamp);
            }}
          >
            <p className="text-neutral-700">
              Jobs that finished (succeeded, dead or cancelled) more than this long ago, with their history, among the jobs this list&apos;s filters
              select. Nothing changes before the dry run&apos;s count and your confirmation.
            </p>
            <Field id="clean-days" label="Finished more than" hint="days ago">
              <input
                id="clean-days"
                type="number"
                min={1}
                step={1}
                value={days}
                onChange={(e) => setDays(e.currentTarget.value)}
                className={`${INPUT} w-32`}
              />
            </Field>
            <button type="submit" className={SECONDARY}>
              Count them (dry run)
            </button>
          </form>
        )}
        {state.phase === "checking" && (
          <p role="status" className="text-neutral-600">
            Counting the finished jobs and their history…
          </p>
        )}
        {state.phase === "error" && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
            {state.message}
          </p>
        )}
        {state.phase === "preview" && <PreviewBody p={state.preview} />}
        {state.phase === "preview" && state.error && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
            {state.error}
          </p>
        )}
        {state.phase === "done" && (
          <p role="status" className="rounded-md bg-emerald-50 p-3 text-emerald-900">
            {state.message}
          </p>
        )}
      </div>
      <div className="flex justify-end gap-2 rounded-b-lg border-t border-neutral-200 bg-neutral-50 px-5 py-3">
        <button type="button" onClick={onClose} className={SECONDARY} data-safe>
          {state.phase === "done" ? "Close" : "Back"}
        </button>
        {state.phase === "preview" && (
          <button
            type="button"
            disabled={state.preview.ids.length === 0 || state.isDeleting}
            onClick={() => confirm(state.preview)}
            className={DANGER}
          >
            {state.isDeleting ? "Deleting…" : `Delete ${plural(state.preview.ids.length, "job")}`}
          </button>
        )}
      </div>
    </Modal>
  );
}

function PreviewBody({ p }: { p: DeletePreviewData }) {
  const skipped = p.willSkip.reduce((n, s) => n + s.count, 0);
  return (
    <section aria-label="Dry run" className="space-y-2">
      <p className="text-neutral-600">Nothing has changed yet: {p.description}.</p>
      <p role="status" className="text-base">
        Will delete <strong className="tabular-nums">{numbers.format(p.ids.length)}</strong> finished {p.ids.length === 1 ? "job" : "jobs"}, with{" "}
        {plural(p.runs, "run")} and {plural(p.events, "event")}; skip <strong className="tabular-nums">{numbers.format(skipped)}</strong>
      </p>
      {p.willSkip.length > 0 && (
        <ul aria-label="Skipped" className="list-inside list-disc text-neutral-600">
          {p.willSkip.map((s) => (
            <li key={s.reason}>
              {plural(s.count, "job")}: {s.reason}
            </li>
          ))}
        </ul>
      )}
      {p.capped && (
        <p className="rounded-md bg-amber-50 p-3 text-amber-900">
          More jobs match than one deletion takes: only the first {numbers.format(p.ids.length + skipped)} in the list&apos;s order are included. Run
          it again for the rest, or `npm run retention` for a large clean-up.
        </p>
      )}
      <p className="text-xs text-neutral-600">
        Deleted with their whole history (attempts, events), as retention deletes them, and not recoverable. A job that is replayed, or held by
        another action, before you confirm stays. Each deletion is in the audit log with its jobs.
      </p>
    </section>
  );
}
