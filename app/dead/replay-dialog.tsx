"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { closeDialogOf, Modal } from "@/components/modal";
import { numbers, plural } from "@/components/numbers";
import { bulkProgressQuery, keys } from "@/lib/client/queries";
import { previewReplayAction, startReplayAction } from "./actions";
import { ReplayResult } from "./replay-result";
import type { Result } from "@/lib/result";
import type { ReplayPreview, ReplayRequest } from "./replay-types";

/** An action's refusal as an Error whose message a person can act on. */
async function unwrap<T>(p: Promise<Result<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.data;
}

const button = "rounded-md px-3 py-1.5 text-sm font-medium shadow-xs disabled:opacity-50";

/**
 * Dry run, confirm, progress, result: every replay goes through these steps.
 * The dry run freezes the jobs as they are now; the confirm replays exactly
 * those, each only if it has not moved since.
 */
type Props = {
  request: ReplayRequest;
  onClose: () => void;
  /** Once the operation is over, with the ids it tried to replay (to unselect them). */
  onApplied: (ids: string[]) => void;
};

export function ReplayDialog({ request, onClose, onApplied }: Props) {
  const client = useQueryClient();

  // The dry run is a read that must not repeat by itself: a second run would freeze a different selection.
  const preview = useQuery({
    queryKey: keys.dead.dryRun(request.key),
    queryFn: () => unwrap(previewReplayAction(request.selection)),
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
  });
  const start = useMutation({
    mutationFn: (p: ReplayPreview) => unwrap(startReplayAction({ selection: request.selection, frozen: p.frozen })),
  });
  const operationId = start.data?.operationId;
  const progress = useQuery({ ...bulkProgressQuery(operationId ?? ""), enabled: !!operationId });
  const isDone = progress.data !== undefined && progress.data.status !== "running";

  // The latest callback, so the effect below runs once per finished operation, not once per render.
  const onAppliedRef = useRef(onApplied);
  useEffect(() => {
    onAppliedRef.current = onApplied;
  });
  const frozen = start.variables?.frozen;
  useEffect(() => {
    if (!isDone) return;
    void client.invalidateQueries({ queryKey: keys.dead.lists });
    onAppliedRef.current(frozen?.map((j) => j.id) ?? []);
  }, [isDone, client, frozen]);

  const p = preview.data;
  const skipped = p ? p.total - p.willApply : 0;

  return (
    <Modal isOpen onClose={onClose} labelledBy="replay-title" className="max-w-lg">
      <div className="space-y-4 p-5">
        <div>
          <h2 id="replay-title" className="text-lg font-semibold tracking-tight">
            {request.title}
          </h2>
          {p && <p className="mt-0.5 font-mono text-xs break-all text-neutral-600">{p.description}</p>}
        </div>

        {preview.isPending && (
          <p role="status" className="text-sm text-neutral-600">
            Running the dry run…
          </p>
        )}
        {preview.isError && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
            {preview.error.message}
          </p>
        )}

        {p && !operationId && (
          <section aria-label="Dry run" className="space-y-2 text-sm">
            <p role="status" className="text-base">
              Will replay <strong className="tabular-nums">{numbers.format(p.willApply)}</strong>, skip{" "}
              <strong className="tabular-nums">{numbers.format(skipped)}</strong> (no longer dead)
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
              <p className="rounded-md bg-amber-50 px-3 py-2 text-amber-900">
                The selection is larger than one replay takes: only the newest {numbers.format(p.total)} are included. Run it again for the rest.
              </p>
            )}
            <p className="text-neutral-600">
              Each job is replayed only if it is still exactly as this dry run saw it; jobs that die after you confirm are not included.
            </p>
          </section>
        )}

        {start.isError && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
            {start.error.message}
          </p>
        )}
        {operationId && (
          <ReplayResult
            expected={p?.willApply ?? 0}
            progress={progress.data}
            error={progress.error}
            operationId={operationId}
            onlyJobId={frozen?.length === 1 ? frozen[0]!.id : null}
          />
        )}

        <div className="flex justify-end gap-2 pt-1">
          <button
            type="button"
            data-safe
            onClick={(e) => closeDialogOf(e.currentTarget)}
            className={`${button} border border-neutral-300 bg-white text-neutral-800 hover:bg-neutral-50`}
          >
            {operationId ? "Close" : "Cancel"}
          </button>
          {p && !operationId && (
            <button
              type="button"
              disabled={p.willApply === 0 || start.isPending}
              onClick={() => start.mutate(p)}
              className={`${button} bg-neutral-900 text-white hover:bg-neutral-700`}
            >
              {start.isPending ? "Starting…" : `Replay ${plural(p.willApply, "job")}`}
            </button>
          )}
        </div>
      </div>
    </Modal>
  );
}
