"use client";

import { useState, type FormEvent } from "react";
import { Field, INPUT } from "@/components/fields";
import { Options } from "@/components/options";
import { CreateFooter } from "@/components/submit-button";
import { keys } from "@/lib/client/queries";
import { ResultNote, useOperate } from "../_operate/use-operate";
import { createScheduleAction } from "./actions";

export type TypeOption = { type: string; description: string; queue: string };

/** Zones offered first; any IANA name the browser knows can be picked below them. */
const COMMON_ZONES = ["UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "Australia/Sydney"];
const allZones = () => {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...COMMON_ZONES, ...known.filter((z) => !COMMON_ZONES.includes(z))];
};

/** Params that each demo type accepts, to start from. */
const EXAMPLE_PARAMS: Record<string, unknown> = {
  "report.generate": { report: "daily_usage", period: "2026-11" },
  "export.tenant_data": { dataset: "orders", rows: 20000 },
  "media.render": { assetId: "asset-1", frames: 240 },
  "upstream.call": { endpoint: "https://partner.example/ping", timeoutRate: 0 },
  "poison.crash": { reason: "scheduled crash drill" },
};

/** A new schedule: every field is checked again on the server (cron, zone, type, params, tenant). */
export function CreateScheduleForm({ tenants, types }: { tenants: { id: string; name: string }[]; types: TypeOption[] }) {
  const op = useOperate(createScheduleAction, keys.schedules());
  const [type, setType] = useState(types[0]?.type ?? "");
  const [params, setParams] = useState(JSON.stringify(EXAMPLE_PARAMS[types[0]?.type ?? ""] ?? {}, null, 2));
  const [zones] = useState(allZones);
  const queueHint = types.find((t) => t.type === type)?.queue ?? "";

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? "");
    op.run({
      name: text("name"),
      cron: text("cron"),
      timeZone: text("timeZone"),
      type,
      params,
      tenantId: text("tenantId"),
      queue: text("queue"),
      priority: Number(text("priority") || 0),
    });
  }

  return (
    <form
      id="new-schedule"
      onSubmit={submit}
      aria-label="New schedule"
      className="space-y-4 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs"
    >
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field id="schedule-name" label="Name" hint="(a-z 0-9 _ . -)">
          <input id="schedule-name" name="name" required pattern="[a-z0-9][a-z0-9_.\-]{0,99}" className={INPUT} placeholder="nightly-usage-report" />
        </Field>
        <Field id="schedule-cron" label="Cron expression" hint="(min hour day month weekday)">
          <input id="schedule-cron" name="cron" required className={`${INPUT} font-mono`} placeholder="0 2 * * *" />
        </Field>
        <Field id="schedule-zone" label="Time zone">
          <select id="schedule-zone" name="timeZone" defaultValue="UTC" className={INPUT}>
            <Options of={zones} />
          </select>
        </Field>
        <Field id="schedule-tenant" label="Tenant">
          <select id="schedule-tenant" name="tenantId" required defaultValue="" className={INPUT}>
            <option value="">Choose a tenant</option>
            <Options of={tenants} value={(t) => t.id} label={(t) => `${t.id} · ${t.name}`} />
          </select>
        </Field>
        <Field id="schedule-type" label="Job type">
          <select
            id="schedule-type"
            value={type}
            onChange={(e) => {
              const next = e.currentTarget.value;
              setType(next);
              setParams(JSON.stringify(EXAMPLE_PARAMS[next] ?? {}, null, 2));
            }}
            className={INPUT}
          >
            <Options of={types} value={(t) => t.type} />
          </select>
        </Field>
        <Field id="schedule-queue" label="Queue" hint="(empty: the type's)">
          <input id="schedule-queue" name="queue" className={`${INPUT} font-mono`} placeholder={queueHint} />
        </Field>
        <Field id="schedule-priority" label="Priority" hint="(0 first … 9)">
          <input id="schedule-priority" name="priority" type="number" min={0} max={9} step={1} defaultValue={0} className={INPUT} />
        </Field>
      </div>
      <Field id="schedule-params" label="Params" hint="(JSON, checked against the type)">
        <textarea
          id="schedule-params"
          rows={4}
          value={params}
          onChange={(e) => setParams(e.currentTarget.value)}
          className={`${INPUT} h-auto py-1 font-mono`}
        />
      </Field>
      <CreateFooter pending={op.pending} label="Create schedule">
        <ResultNote result={op.result} />
      </CreateFooter>
    </form>
  );
}
