"use client";

import type { FormEvent } from "react";
import { SECONDARY } from "@/components/fields";
import { plural } from "@/components/numbers";
import { ParamsFields } from "@/components/params-fields";
import type { InputIssue } from "@/lib/result";
import type { ReplayRisks } from "@/lib/jobs/replay";
import type { OperationPreview, ParamsEdit } from "./types";

// What only a replay's dry run says: its risks, and one job's params to edit.

/** The form of edited params (the dialog reads it by this id). */
export const EDIT_FORM = "replay-params";

/** What to expect: jobs likely to die the same way, and how many attempts a replay gives. */
export function Risks({ preview: p }: { preview: OperationPreview & { risks: ReplayRisks } }) {
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
export function EditParams(props: {
  edit: ParamsEdit;
  checked: ParamsEdit | null;
  isOpen: boolean;
  onOpen: () => void;
  onCancel: () => void;
  onCheck: (e: FormEvent<HTMLFormElement>) => void;
  isChecking: boolean;
  error: string | null;
  clientIssues: InputIssue[];
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
