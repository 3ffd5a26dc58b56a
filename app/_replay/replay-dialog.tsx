"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { closeDialogOf, Modal } from "@/components/modal";
import { numbers, plural } from "@/components/numbers";
import { ParamsFields, readParams, type FieldIssue } from "@/components/params-fields";
import { SECONDARY } from "@/components/fields";
import { bulkProgressQuery, keys } from "@/lib/client/queries";
import type { Result } from "@/lib/result";
import { previewReplayAction, startReplayAction } from "./actions";
import { ReplayResult } from "./replay-result";
import type { ReplayEdit, ReplayPreview, ReplayRequest } from "./replay-types";

/** An action's refusal as an Error whose message a person can act on. */
async function unwrap<T>(p: Promise<Result<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.data;
}

const button = "rounded-md px-3 py-1.5 text-sm font-medium shadow-xs disabled:opacity-50";
const EDIT_FORM = "replay-params";

type Props = {
  request: ReplayRequest;
  onClose: () => void;
  /** Once the operation is over, with the ids it tried to replay (to unselect them, to refresh a page). */
  onApplied: (ids: string[]) => void;
};

/**
 * Every replay, wherever it is asked for (a job's page, /dead, the jobs list): dry run, confirm,
 * progress, outcome. The dry run freezes the jobs as they are now and says which are likely to die
 * the same way and how many attempts a replay gives; the confirm replays exactly those, each only if
 * it has not moved since. One job can be replayed with edited params, checked against its type first.
 */
export function ReplayDialog({ request, onClose, onApplied }: Props) {
  const client = useQueryClient();
  const [isEditing, setIsEditing] = useState(false);
  const [clientIssues, setClientIssues] = useState<FieldIssue[]>([]);

  // The dry run is a read that must not repeat by itself: a second run would freeze a different selection.
  const preview = useQuery({
    queryKey: keys.dead.dryRun(request.key),
    queryFn: () => unwrap(previewReplayAction({ selection: request.selection })),
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
  });
  // The dry run again with edited params: their check, their diff, and a fresh freeze.
  const check = useMutation({ mutationFn: (params: unknown) => unwrap(previewReplayAction({ selection: request.selection, params })) });
  const start = useMutation({
    mutationFn: (v: { p: ReplayPreview; params?: unknown }) =>
      unwrap(startReplayAction({ selection: request.selection, frozen: v.p.frozen, params: v.params })),
  });
  const operationId = start.data?.operationId;
  const progress = useQuery({ ...bulkProgressQuery(operationId ?? ""), enabled: !!operationId });
  const isDone = progress.data !== undefined && progress.data.status !== "running";

  // The latest callback, so the effect below runs once per finished operation, not once per render.
  const onAppliedRef = useRef(onApplied);
  useEffect(() => {
    onAppliedRef.current = onApplied;
  });
  const frozen = start.variables?.p.frozen;
  useEffect(() => {
    if (!isDone) return;
    void client.invalidateQueries({ queryKey: keys.dead.lists });
    void client.invalidateQueries({ queryKey: keys.jobs.all });
    onAppliedRef.current(frozen?.map(([id]) => id) ?? []);
  }, [isDone, client, frozen]);

  // Edited and checked: the confirm replays with these params; the dialog shows their dry run.
  const edited = isEditing && check.data?.edit?.params !== undefined && !check.data.edit.issues ? check.data : null;
  const p = edited ?? preview.data;
  const skipped = p ? p.total - p.willApply : 0;
  const edit = p?.edit ?? null;
  const isUnchanged = edited !== null && (edited.edit?.diff?.length ?? 0) === 0;

  function onCheck(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const fields = preview.data?.edit?.fields ?? null;
    const read = readParams(e.currentTarget, EDIT_FORM, fields);
    setClientIssues(read.issues);
    if (read.issues.length === 0) check.mutate(read.params);
  }

  return (
    <Modal isOpen onClose={onClose} labelledBy="replay-title" className="max-w-xl">
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
            <Risks preview={p} />
            <p className="text-neutral-600">
              Each job is replayed only if it is still exactly as this dry run saw it; jobs that die after you confirm are not included.
            </p>
          </section>
        )}

        {edit && preview.data?.edit && !operationId && (
          <EditParams
            edit={preview.data.edit}
            checked={check.data?.edit ?? null}
            isOpen={isEditing}
            onOpen={() => setIsEditing(true)}
            onCancel={() => {
              setIsEditing(false);
              check.reset();
              setClientIssues([]);
            }}
            onCheck={onCheck}
            isChecking={check.isPending}
            error={check.error?.message ?? null}
            clientIssues={clientIssues}
          />
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
            onlyJobId={frozen?.length === 1 ? frozen[0]![0] : null}
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
              disabled={p.willApply === 0 || start.isPending || (isEditing && (edited === null || isUnchanged))}
              onClick={() => start.mutate(edited ? { p: edited, params: edited.edit!.params } : { p })}
              className={`${button} bg-neutral-900 text-white hover:bg-neutral-700`}
            >
              {start.isPending ? "Starting…" : `Replay ${plural(p.willApply, "job")}${edited ? " with edited params" : ""}`}
            </button>
          )}
        </div>
      </div>
    </Modal>
  );
}

/** What to expect: jobs likely to die the same way, and how many attempts a replay gives. */
function Risks({ preview: p }: { preview: ReplayPreview }) {
  const { poison, permanent, oneMore, keepLeft } = p.risks;
  const attempts =
    keepLeft.jobs === 0
      ? `A replay gives ${p.willApply === 1 ? "the job one more attempt" : "each job one more attempt"}: if it fails, it is dead again. Its history is kept.`
      : oneMore === 0
        ? `${plural(keepLeft.jobs, "job")} died with attempts left and ${keepLeft.jobs === 1 ? "keeps them" : "keep them"} (up to ${plural(keepLeft.most, "more attempt")}); a replay does not add any. History is kept.`
        : `${plural(oneMore, "job")} ${oneMore === 1 ? "gets" : "get"} one more attempt; ${plural(keepLeft.jobs, "job")} died with attempts left and keep them (up to ${keepLeft.most}). History is kept.`;
  return (
    <div className="space-y-2">
      {poison > 0 && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-red-900">
          <strong className="font-semibold">{plural(poison, "job")} stopped as poison, or lost its worker again and again:</strong> its handler seems
          to take the worker process down. A replay hands {poison === 1 ? "it" : "them"} to a worker again: fix the handler first, or other
          tenants&apos; jobs on that worker go down too.
        </p>
      )}
      {permanent > 0 && (
        <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-amber-950">
          <strong className="font-semibold">{plural(permanent, "job")} died of a permanent error:</strong> the handler said retrying cannot help. Run
          again with the same params, {permanent === 1 ? "it" : "they"} will most likely fail the same way
          {p.edit?.isEditable ? ": edit the params below if they were the cause" : ""}.
        </p>
      )}
      <p className="text-neutral-700">{attempts}</p>
    </div>
  );
}

/** One job's params: replay as they are, or edit them (a form from the job type's schema), check them, see the diff. */
function EditParams(props: {
  edit: ReplayEdit;
  checked: ReplayEdit | null;
  isOpen: boolean;
  onOpen: () => void;
  onCancel: () => void;
  onCheck: (e: FormEvent<HTMLFormElement>) => void;
  isChecking: boolean;
  error: string | null;
  clientIssues: FieldIssue[];
}) {
  const { edit, checked } = props;
  if (!edit.isEditable) {
    return (
      <p className="text-xs text-neutral-600">{edit.type} jobs are submitted by Jobscope itself: they are replayed with their params as they are.</p>
    );
  }
  if (!props.isOpen) {
    return (
      <button type="button" className={SECONDARY} onClick={props.onOpen}>
        Edit params before replaying…
      </button>
    );
  }
  const issues = [...props.clientIssues, ...(checked?.issues ?? [])];
  const current =
    typeof edit.current === "object" && edit.current !== null && !Array.isArray(edit.current) ? (edit.current as Record<string, unknown>) : null;
  return (
    <section aria-label="Edit params" className="space-y-3 rounded-md border border-neutral-200 p-3">
      <p className="text-xs text-neutral-600">
        Checked like a new <span className="font-mono">{edit.type}</span> job. The job&apos;s submitted params stay in its history; the replay carries
        the edited ones, and the audit log keeps the diff.
      </p>
      <form id={EDIT_FORM} noValidate onSubmit={props.onCheck} className="space-y-3">
        <ParamsFields idPrefix={EDIT_FORM} fields={edit.fields} initial={current} issues={issues} />
        <div className="flex flex-wrap items-center gap-2">
          <button type="submit" className={SECONDARY} disabled={props.isChecking}>
            {props.isChecking ? "Checking…" : "Check the edited params"}
          </button>
          <button type="button" className={SECONDARY} onClick={props.onCancel}>
            Replay them as they are
          </button>
        </div>
      </form>
      {props.error && (
        <p role="alert" className="text-sm text-red-800">
          {props.error}
        </p>
      )}
      {checked?.diff && (
        <div role="status" aria-label="Params diff" className="text-sm">
          {checked.diff.length === 0 ? (
            <p className="text-neutral-700">Nothing changed: these are the params the job already runs with.</p>
          ) : (
            <>
              <p className="font-medium">The replay will run with:</p>
              <ul className="mt-1 space-y-0.5 font-mono text-xs">
                {checked.diff.map((c) => (
                  <li key={c.path}>
                    {c.path}: <del className="text-red-800">{show(c.from)}</del> → <ins className="text-emerald-800 no-underline">{show(c.to)}</ins>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}

const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v));
