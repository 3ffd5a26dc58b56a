"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Field, INPUT } from "@/components/fields";
import { Options } from "@/components/options";
import { ParamsFields, readParams } from "@/components/params-fields";
import type { InputIssue } from "@/lib/result";
import { SubmitButton } from "@/components/submit-button";
import { TimeZoneSelect, useTimeZone } from "@/components/time-zone";
import { useAction } from "@/components/use-action";
import { keys } from "@/lib/client/queries";
import { fromWallInput } from "@/lib/client/tz";
import type { ParamField } from "@/lib/jobs/param-fields";
import { submitJobAction } from "./actions";

export type SubmitType = { type: string; description: string; queue: string; maxAttempts: number; fields: ParamField[] | null };

const PARAMS = "submit-params";

/**
 * The job's tenant, type and params (the type's form), and the optional rest (queue, priority,
 * attempts, not before, idempotency key). The server checks everything; each problem comes back to
 * its field. On success the job is one click away.
 */
export function SubmitJobForm({
  tenants,
  types,
  initialType,
}: {
  tenants: { id: string; name: string }[];
  types: SubmitType[];
  initialType: string;
}) {
  const [type, setType] = useState(initialType);
  const [clientIssues, setClientIssues] = useState<InputIssue[]>([]);
  const { result: answer, pending, run, clear } = useAction(submitJobAction, { invalidate: [keys.jobs.all, keys.counts()] });
  const tz = useTimeZone();
  const option = types.find((t) => t.type === type);
  const serverIssues = answer && !answer.ok ? (answer.error.issues ?? []) : [];
  const issues = [...clientIssues, ...serverIssues];
  const paramIssues = issues
    .filter((i) => i.path === "params" || i.path.startsWith("params."))
    .map((i) => ({ ...i, path: i.path.replace(/^params\.?/, "") }));
  const fieldIssue = (name: string) => issues.find((i) => i.path === name)?.message;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const text = (k: string) => String(f.get(k) ?? "").trim();
    const read = readParams(form, PARAMS, option?.fields ?? null);
    setClientIssues(read.issues.map((i) => ({ ...i, path: i.path ? `params.${i.path}` : "params" })));
    if (read.issues.length) return;
    const number = (k: string) => (text(k) === "" ? undefined : Number(text(k)));
    const notBefore = text("notBefore") ? fromWallInput(text("notBefore"), tz) : undefined;
    run({
      tenantId: text("tenantId"),
      type,
      params: read.params,
      queue: text("queue") || undefined,
      priority: number("priority"),
      maxAttempts: number("maxAttempts"),
      notBefore: notBefore?.toISOString() ?? (text("notBefore") || undefined),
      idempotencyKey: text("idempotencyKey") || undefined,
    });
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Submit a job" className="space-y-5 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Field id="submit-tenant" label="Tenant">
          <select
            id="submit-tenant"
            name="tenantId"
            required
            defaultValue=""
            aria-invalid={fieldIssue("tenantId") ? true : undefined}
            className={INPUT}
          >
            <option value="">Choose a tenant</option>
            <Options of={tenants} value={(t) => t.id} label={(t) => `${t.id} · ${t.name}`} />
          </select>
          <Problem message={fieldIssue("tenantId")} />
        </Field>
        <Field id="submit-type" label="Job type">
          <select
            id="submit-type"
            value={type}
            onChange={(e) => {
              setType(e.currentTarget.value);
              clear();
              setClientIssues([]);
            }}
            className={INPUT}
          >
            <Options of={types} value={(t) => t.type} />
          </select>
        </Field>
        <p className="self-end text-xs text-neutral-600">{option?.description}</p>
      </div>

      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">
          Params <span className="font-mono text-xs font-normal text-neutral-600">{type}</span>
        </legend>
        {/* Keyed by type: another type's form starts from its own fields. */}
        <ParamsFields key={type} idPrefix={PARAMS} fields={option?.fields ?? null} initial={null} issues={paramIssues} />
      </fieldset>

      <details className="group" open={issues.some((i) => ["queue", "priority", "maxAttempts", "notBefore", "idempotencyKey"].includes(i.path))}>
        <summary className="cursor-pointer text-sm font-medium text-neutral-700">Queue, priority, attempts, start time, idempotency key</summary>
        <div className="mt-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          <Field id="submit-queue" label="Queue" hint={`(empty: ${option?.queue ?? "the type's"})`}>
            <input id="submit-queue" name="queue" className={`${INPUT} font-mono`} placeholder={option?.queue} />
            <Problem message={fieldIssue("queue")} />
          </Field>
          <Field id="submit-priority" label="Priority" hint="(0 first … 9)">
            <input id="submit-priority" name="priority" type="number" step={1} min={0} max={9} placeholder="0" className={INPUT} />
            <Problem message={fieldIssue("priority")} />
          </Field>
          <Field id="submit-attempts" label="Attempts at most" hint={`(empty: ${option?.maxAttempts ?? "the type's"})`}>
            <input id="submit-attempts" name="maxAttempts" type="number" step={1} min={1} max={100} className={INPUT} />
            <Problem message={fieldIssue("maxAttempts")} />
          </Field>
          <Field id="submit-not-before" label="Not before" hint={`(${tz}; empty: now)`}>
            <input id="submit-not-before" name="notBefore" type="datetime-local" className={INPUT} />
            <Problem message={fieldIssue("notBefore")} />
          </Field>
          <Field id="submit-key" label="Idempotency key" hint="(a second submit with it returns the first job)">
            <input id="submit-key" name="idempotencyKey" maxLength={200} className={`${INPUT} font-mono`} />
            <Problem message={fieldIssue("idempotencyKey")} />
          </Field>
          <TimeZoneSelect
            id="submit-tz"
            className={INPUT}
            labelClassName="text-xs font-medium text-neutral-600"
            wrapperClassName="flex flex-col gap-1"
          />
        </div>
      </details>

      <div className="flex flex-wrap items-center justify-between gap-3">
        <div aria-live="polite" className="min-w-0 flex-1 text-sm">
          {answer?.ok && (
            <p role="status" className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-emerald-900">
              {answer.message}{" "}
              <Link href={`/jobs/${answer.data.id}`} className="font-medium underline underline-offset-2">
                Open the job
              </Link>
            </p>
          )}
          {answer && !answer.ok && (
            <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-red-900">
              {answer.error.issues?.length
                ? `Nothing was submitted: ${plural(answer.error.issues.length)} to fix, shown at ${answer.error.issues.length === 1 ? "its field" : "their fields"}.`
                : answer.error.message}
            </p>
          )}
        </div>
        <SubmitButton pending={pending} busy="Submitting…">
          Submit job
        </SubmitButton>
      </div>
    </form>
  );
}

const plural = (n: number) => `${n} ${n === 1 ? "problem" : "problems"}`;

function Problem({ message }: { message: string | undefined }) {
  return message ? <span className="text-xs text-red-800">{message}</span> : null;
}
