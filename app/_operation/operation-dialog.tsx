"use client";

import { useEffect, useState, type FormEvent } from "react";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { numbers, plural } from "@/components/numbers";
import { readParams } from "@/components/params-fields";
import type { InputIssue } from "@/lib/result";
import { useAction, useRefresh } from "@/components/use-action";
import { keys } from "@/lib/client/queries";
import { isDestructive } from "@/lib/fsm/machine";
import { applyOperationAction, previewOperationAction } from "./actions";
import { OperationResultView } from "./operation-result";
import { EDIT_FORM, EditParams, Risks } from "./replay-details";
import type { OperationPreview, OperationRequest } from "./types";

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What an operation changes: jobs (the list, every job page, the counts) and the dead groups. */
const CHANGED = { invalidate: [keys.jobs.all, keys.dead.lists, keys.counts()] };

/**
 * Every operation on jobs, wherever it is asked for (a job's page, /dead, the jobs list): the
 * question — a dry run that freezes the jobs as they are now, or, for one job whose page shows its
 * state and version, the question alone — then the confirm (applyOperationAction) and its result
 * in the same dialog. A replay's dry run says which jobs are likely to die the same way and how
 * many attempts it gives; one job can be replayed with edited params, checked against its type.
 */
export function OperationDialog({
  request,
  onClose,
  onApplied,
  isOnJobPage = false,
}: {
  request: OperationRequest;
  onClose: () => void;
  /** Once the operation is over, with the ids it tried to move (to unselect them). */
  onApplied?: (ids: string[]) => void;
  isOnJobPage?: boolean;
}) {
  const { operation, selection, expected } = request;
  const needsDryRun = !expected || operation === "replay";
  const preview = useAction(previewOperationAction);
  // The dry run again with edited params: their check, their diff, and a fresh freeze.
  const check = useAction(previewOperationAction);
  const apply = useAction(applyOperationAction);
  const refreshChanged = useRefresh(CHANGED);
  const [isEditing, setIsEditing] = useState(false);
  const [clientIssues, setClientIssues] = useState<InputIssue[]>([]);

  const runPreview = preview.run;
  useEffect(() => {
    // Once per dialog: a second dry run would freeze a different selection.
    if (needsDryRun) runPreview({ operation, selection });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the request is fixed for the dialog's life (keyed by the page).
  }, []);

  const dryRun = preview.result?.ok ? preview.result.data : null;
  const checked = check.result?.ok ? check.result.data : null;
  // Edited and checked: the confirm replays with these params; the dialog shows their dry run.
  const edited = isEditing && checked?.edit?.params !== undefined && !checked.edit.issues ? checked : null;
  const p: OperationPreview | null = edited ?? dryRun;
  const isUnchanged = edited !== null && (edited.edit?.diff?.length ?? 0) === 0;
  const done = apply.result?.ok ? apply.result.data : null;

  const jobs =
    expected && selection.kind === "ids" && !needsDryRun ? [[selection.ids[0]!, expected.state, expected.version] as const] : (p?.jobs ?? []);
  const count = expected && !needsDryRun ? 1 : (p?.willApply ?? 0);
  const confirm = () => {
    const params = edited ? edited.edit!.params : undefined;
    apply.run({ operation, selection, jobs: jobs.map((j) => [...j]), ...(params === undefined ? {} : { params }) });
  };

  function onCheck(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const read = readParams(e.currentTarget, EDIT_FORM, dryRun?.edit?.fields ?? null);
    setClientIssues(read.issues);
    if (read.issues.length === 0) check.run({ operation, selection, params: read.params });
  }

  const label =
    expected && !needsDryRun ? `Yes, ${operation}` : `${capitalize(operation)} ${plural(count, "job")}${edited ? " with edited params" : ""}`;
  return (
    <ConfirmDialog
      title={request.title}
      subtitle={p?.description}
      body={done ? undefined : request.question}
      confirmLabel={done ? null : apply.pending ? "Applying…" : label}
      isDestructive={operation === "delete" || isDestructive(operation)}
      isConfirmDisabled={count === 0 || apply.pending || (isEditing && (edited === null || isUnchanged))}
      onConfirm={confirm}
      onClose={onClose}
      wide={needsDryRun}
    >
      {needsDryRun && !p && !preview.result && (
        <p role="status" className="text-sm text-neutral-600">
          Running the dry run…
        </p>
      )}
      {preview.result && !preview.result.ok && <Alert message={preview.result.error.message} />}
      {p && !done && <DryRun preview={p} />}
      {dryRun?.edit && !done && (
        <EditParams
          edit={dryRun.edit}
          checked={check.result?.ok ? (check.result.data.edit ?? null) : null}
          isOpen={isEditing}
          onOpen={() => setIsEditing(true)}
          onCancel={() => {
            setIsEditing(false);
            check.clear();
            setClientIssues([]);
          }}
          onCheck={onCheck}
          isChecking={check.pending}
          error={check.result && !check.result.ok ? check.result.error.message : null}
          clientIssues={clientIssues}
        />
      )}
      {apply.result && !apply.result.ok && <Alert message={apply.result.error.message} />}
      {done && (
        <OperationResultView
          result={done}
          isOnJobPage={isOnJobPage}
          onSettled={() => {
            void refreshChanged();
            onApplied?.(jobs.map(([id]) => id));
          }}
        />
      )}
    </ConfirmDialog>
  );
}

/** The dry run's answer: what would move, what would not and why, and (a replay's) what to expect. */
function DryRun({ preview: p }: { preview: OperationPreview }) {
  const skipped = p.total - p.willApply;
  return (
    <section aria-label="Dry run" className="space-y-2 text-sm">
      <p role="status" className="text-base">
        Will {p.operation}{" "}
        <strong className="tabular-nums" aria-label={`will move ${p.willApply}`}>
          {numbers.format(p.willApply)}
        </strong>
        , skip{" "}
        <strong className="tabular-nums" aria-label={`will skip ${skipped}`}>
          {numbers.format(skipped)}
        </strong>
      </p>
      {p.history && (
        <p className="text-neutral-700">
          With their {plural(p.history.runs, "run")} and {plural(p.history.events, "event")}: deleted with their whole history, as retention deletes
          them, and not recoverable. Each deletion is in the audit log with its jobs.
        </p>
      )}
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
          The selection is larger than one operation takes: only the newest {numbers.format(p.total)} are included. Run it again for the rest.
        </p>
      )}
      {p.risks && <Risks preview={{ ...p, risks: p.risks }} />}
      <p className="text-neutral-600">
        {p.history
          ? "Only the finished jobs this dry run found are deleted: one replayed or held by another action before you confirm stays."
          : "Each job is moved only if it is still exactly as this dry run saw it; jobs that arrive after it are not included."}
        {p.isDirect ? "" : " A worker applies it: it goes on if you close this, and a restart loses nothing."}
      </p>
    </section>
  );
}

function Alert({ message }: { message: string }) {
  return (
    <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
      {message}
    </p>
  );
}
