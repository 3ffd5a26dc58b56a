"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { Field, INPUT, SECONDARY } from "@/components/fields";
import { IntegerField, TextField } from "@/components/form-field";
import { Options } from "@/components/options";
import { ParamsFields, readParams } from "@/components/params-fields";
import type { InputIssue } from "@/lib/result";
import { SubmitButton } from "@/components/submit-button";
import { LocalTime } from "@/components/time-zone";
import { cronPreviewQuery, keys } from "@/lib/client/queries";
import type { SchedulesResponse } from "@/lib/client/wire";
import type { ParamField } from "@/lib/jobs/param-fields";
import { ResultNote, useAction } from "@/components/use-action";
import { createScheduleAction, updateScheduleAction } from "./actions";

export type TypeOption = { type: string; description: string; queue: string; fields: ParamField[] | null };
type ScheduleWire = SchedulesResponse["schedules"][number];

/** Zones offered first; any IANA name the browser knows can be picked below them. */
const COMMON_ZONES = ["UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "Australia/Sydney"];
const allZones = () => {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...COMMON_ZONES, ...known.filter((z) => !COMMON_ZONES.includes(z))];
};
const PARAMS = "schedule-params";

/**
 * A new schedule, or a change to one (`editing`): every field is checked again on the server (cron,
 * zone, type, params, tenant). The expression is read back in words with its next runs as it is
 * typed, and refused there already when it would be refused on save. The params are the job type's
 * form (lib/jobs/param-fields.ts).
 */
export function ScheduleForm({
  tenants,
  types,
  editing,
  onDone,
}: {
  tenants: { id: string; name: string }[];
  types: TypeOption[];
  editing?: ScheduleWire;
  onDone?: () => void;
}) {
  const create = useAction(createScheduleAction, { invalidate: [keys.schedules()] });
  const update = useAction(updateScheduleAction, { invalidate: [keys.schedules()] });
  const op = editing ? update : create;
  const [type, setType] = useState(editing?.type ?? types[0]?.type ?? "");
  const [cron, setCron] = useState(editing?.cron ?? "");
  const [timeZone, setTimeZone] = useState(editing?.timeZone ?? "UTC");
  const [issues, setIssues] = useState<InputIssue[]>([]);
  const [zones] = useState(allZones);
  const option = types.find((t) => t.type === type);
  const prefix = editing ? `schedule-${editing.id}` : "schedule-new";

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? "");
    const read = readParams(e.currentTarget, PARAMS, option?.fields ?? null);
    setIssues(read.issues);
    if (read.issues.length) return;
    const fields = {
      cron,
      timeZone,
      type,
      params: read.params,
      tenantId: text("tenantId"),
      queue: text("queue"),
      priority: Number(text("priority") || 0),
    };
    if (editing) update.run({ id: editing.id, seen: editing.updatedAt, ...fields }, () => onDone?.());
    else create.run({ name: text("name"), ...fields });
  }

  const initialParams = editing && editing.type === type && isRecord(editing.params) ? editing.params : null;
  return (
    <form
      id={editing ? `edit-${editing.id}` : "new-schedule"}
      onSubmit={submit}
      noValidate
      aria-label={editing ? `Edit schedule ${editing.name}` : "New schedule"}
      className="space-y-4 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs"
    >
      {editing && (
        <h2 className="text-sm font-semibold">
          Edit schedule <span className="font-mono">{editing.name}</span>
        </h2>
      )}
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {!editing && <TextField id={`${prefix}-name`} label="Name" hint="(a-z 0-9 _ . -)" name="name" required placeholder="nightly-usage-report" />}
        <TextField
          id={`${prefix}-cron`}
          label="Cron expression"
          hint="(min hour day month weekday)"
          name="cron"
          required
          value={cron}
          onChange={(e) => setCron(e.currentTarget.value)}
          aria-describedby={`${prefix}-cron-reading`}
          className={`${INPUT} font-mono`}
          placeholder="0 2 * * *"
        />
        <Field id={`${prefix}-zone`} label="Time zone">
          <select id={`${prefix}-zone`} name="timeZone" value={timeZone} onChange={(e) => setTimeZone(e.currentTarget.value)} className={INPUT}>
            <Options of={zones} />
          </select>
        </Field>
        <Field id={`${prefix}-tenant`} label="Tenant">
          <select id={`${prefix}-tenant`} name="tenantId" required defaultValue={editing?.tenantId ?? ""} className={INPUT}>
            <option value="">Choose a tenant</option>
            <Options of={tenants} value={(t) => t.id} label={(t) => `${t.id} · ${t.name}`} />
          </select>
        </Field>
        <Field id={`${prefix}-type`} label="Job type">
          <select
            id={`${prefix}-type`}
            value={type}
            onChange={(e) => {
              setType(e.currentTarget.value);
              setIssues([]);
            }}
            className={INPUT}
          >
            <Options of={types} value={(t) => t.type} />
          </select>
        </Field>
        <TextField
          id={`${prefix}-queue`}
          label="Queue"
          hint="(empty: the type's)"
          name="queue"
          defaultValue={editing && editing.queue !== option?.queue ? editing.queue : ""}
          className={`${INPUT} font-mono`}
          placeholder={option?.queue ?? ""}
        />
        <IntegerField
          id={`${prefix}-priority`}
          label="Priority"
          hint="(0 first … 9)"
          name="priority"
          min={0}
          max={9}
          defaultValue={editing?.priority ?? 0}
        />
      </div>
      <CronReading id={`${prefix}-cron-reading`} cron={cron} timeZone={timeZone} />
      <fieldset className="space-y-2">
        <legend className="text-xs font-medium text-neutral-600">
          Params for <span className="font-mono">{type}</span> {option?.description ? `· ${option.description}` : ""}
        </legend>
        {/* Keyed by type: another type's form starts from its own fields. */}
        <ParamsFields key={type} idPrefix={PARAMS} fields={option?.fields ?? null} initial={initialParams} issues={issues} />
      </fieldset>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0 flex-1 space-y-2">
          <ResultNote result={op.result} />
        </div>
        <div className="flex gap-2">
          {editing && (
            <button type="button" className={SECONDARY} onClick={onDone}>
              Cancel
            </button>
          )}
          <SubmitButton pending={op.pending} busy={editing ? "Saving…" : "Creating…"}>
            {editing ? "Save schedule" : "Create schedule"}
          </SubmitButton>
        </div>
      </div>
    </form>
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The expression being typed, read back: in words and its next runs, or why it would be refused. */
function CronReading({ id, cron, timeZone }: { id: string; cron: string; timeZone: string }) {
  // Asked once typing pauses, not on every key.
  const [asked, setAsked] = useState({ cron, timeZone });
  useEffect(() => {
    const t = setTimeout(() => setAsked({ cron, timeZone }), 300);
    return () => clearTimeout(t);
  }, [cron, timeZone]);
  const query = useQuery({ ...cronPreviewQuery(asked.cron.trim(), asked.timeZone), enabled: asked.cron.trim() !== "" });
  const p = query.data;
  return (
    <div id={id} aria-live="polite" className="min-h-5 text-sm">
      {!asked.cron.trim() ? (
        <p className="text-neutral-600">Type an expression to see it in words, with its next runs.</p>
      ) : !p ? null : p.ok ? (
        <div>
          <p>
            <span className="font-medium">{p.description ?? asked.cron}</span> <span className="text-neutral-600">({asked.timeZone})</span>
          </p>
          <p className="text-xs text-neutral-600">
            Next runs:{" "}
            {p.next.map((t, i) => (
              <span key={t}>
                {i > 0 && " · "}
                <LocalTime at={new Date(t)} className="tabular-nums" />
              </span>
            ))}
          </p>
        </div>
      ) : (
        <p role="alert" className="text-red-800">
          Not accepted: {p.message}.
        </p>
      )}
    </div>
  );
}
