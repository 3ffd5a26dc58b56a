"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { SECONDARY } from "@/components/fields";
import { JobLink } from "@/components/cells";
import { actionsColumn, pausableRows, type Column } from "@/components/data-table";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { plural } from "@/components/numbers";
import { PageHeader, useLive } from "@/components/page-header";
import { PageTable } from "@/components/page-table";
import { formatDateTime, formatRelative } from "@/lib/time-format";
import { LocalTime, useTimeZone } from "@/components/time-zone";
import { StateBadge } from "@/components/state-badge";
import { useNow } from "@/components/use-now";
import { keys, schedulesQuery } from "@/lib/client/queries";
import type { SchedulesResponse } from "@/lib/client/wire";
import { RowFailure, useAction } from "@/components/use-action";
import { Badge } from "../queues/queues-view";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { deleteScheduleAction, runScheduleNowAction, setSchedulePausedAction } from "./actions";
import { ScheduleForm, type TypeOption } from "./schedule-form";

const POLL_MS = 3_000;

type ScheduleWire = SchedulesResponse["schedules"][number];

/** "in 4 min" (the UTC time on hover); before the browser's clock is known, the time in the viewer's zone. */
function When({ at, now }: { at: string; now: number }) {
  const d = new Date(at);
  const tz = useTimeZone();
  return (
    <LocalTime at={d} className="block whitespace-nowrap tabular-nums">
      {now ? formatRelative(d.getTime(), now) : formatDateTime(d, tz)}
    </LocalTime>
  );
}

function columns(now: number, canOperate: boolean, onEdit: (s: ScheduleWire) => void): Column<ScheduleWire>[] {
  const cols: Column<ScheduleWire>[] = [
    {
      header: "Schedule",
      isRowHeader: true,
      cell: (s) => (
        <>
          <span className="flex flex-wrap items-center gap-1.5">
            <span className="font-mono text-sm font-medium">{s.name}</span>
            {s.paused && <Badge tone="amber">paused</Badge>}
            <Badge tone="neutral">{s.source === "code" ? "declared in code" : "console"}</Badge>
          </span>
          <span className="block text-xs text-neutral-800">{s.description ?? "(an expression cronstrue cannot read)"}</span>
          <span className="block font-mono text-xs text-neutral-700">
            {s.cron} <span className="text-neutral-600">· {s.timeZone}</span>
          </span>
          {s.problem && (
            <span role="note" className="mt-1 block max-w-md text-xs font-medium text-amber-900">
              Stored before it would be refused: {s.problem}. Edit it.
            </span>
          )}
          {s.lastError && (
            <span role="note" className="mt-1 block text-xs font-medium text-red-800">
              Last tick submitted nothing: {s.lastError}
            </span>
          )}
        </>
      ),
    },
    {
      header: "Job",
      cell: (s) => (
        <>
          <span className="block font-mono text-xs">{s.type}</span>
          <span className="block text-xs text-neutral-600">
            tenant {s.tenantId} ·{" "}
            <Link href={`/jobs?queue=${encodeURIComponent(s.queue)}`} prefetch={false} className="font-mono hover:underline">
              {s.queue}
            </Link>
            {s.priority ? ` · priority ${s.priority}` : ""}
          </span>
        </>
      ),
    },
    {
      header: "Next runs",
      cell: (s) =>
        s.paused ? (
          <span className="text-neutral-600">none while paused</span>
        ) : (
          <ul className="space-y-0.5 text-xs">
            {s.upcoming.map((t) => (
              <li key={t}>
                <When at={t} now={now} />
              </li>
            ))}
          </ul>
        ),
    },
    {
      header: "Last runs",
      cell: (s) =>
        s.runs.length === 0 ? (
          <span className="text-neutral-600">none yet</span>
        ) : (
          <ul className="space-y-1">
            {s.runs.map((r) => (
              <li key={r.tickAt} className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs">
                <JobLink id={r.jobId} />
                {r.state ? <StateBadge state={r.state} /> : <span className="text-neutral-600">gone</span>}
                <When at={r.tickAt} now={now} />
                {r.enqueuedBy.startsWith("console:") && <span className="text-neutral-600">run now by {r.enqueuedBy.slice("console:".length)}</span>}
                {r.missed > 0 && <span className="text-amber-800">{plural(r.missed, "missed tick")} skipped</span>}
              </li>
            ))}
          </ul>
        ),
    },
  ];
  if (canOperate) cols.push(actionsColumn((s) => <RowActions schedule={s} onEdit={() => onEdit(s)} />));
  return cols;
}

/**
 * A schedule's actions: run now, pause or resume, and for a schedule made here edit and delete (one
 * declared in code is changed in code: the next worker start would undo a change made here).
 */
function RowActions({ schedule: s, onEdit }: { schedule: ScheduleWire; onEdit: () => void }) {
  const pause = useAction(setSchedulePausedAction, { invalidate: [keys.schedules()] });
  const runNow = useAction(runScheduleNowAction, { invalidate: [keys.schedules()] });
  const remove = useAction(deleteScheduleAction, { invalidate: [keys.schedules()] });
  const [isConfirming, setIsConfirming] = useState(false);
  const isCode = s.source === "code";
  const busy = pause.pending || runNow.pending || remove.pending;
  return (
    <div className="flex flex-col items-end gap-1.5">
      <div className="flex flex-wrap justify-end gap-1.5">
        <button
          type="button"
          className={SECONDARY}
          disabled={busy}
          aria-label={`Run schedule ${s.name} now`}
          onClick={() => runNow.run({ id: s.id })}
        >
          {runNow.pending ? "Submitting…" : "Run now"}
        </button>
        <button
          type="button"
          className={SECONDARY}
          disabled={busy}
          aria-label={`${s.paused ? "Resume" : "Pause"} schedule ${s.name}`}
          onClick={() => pause.run({ id: s.id, paused: !s.paused })}
        >
          {pause.pending ? "Saving…" : s.paused ? "Resume" : "Pause"}
        </button>
        {!isCode && (
          <>
            <button type="button" className={SECONDARY} disabled={busy} aria-label={`Edit schedule ${s.name}`} onClick={onEdit}>
              Edit
            </button>
            <button
              type="button"
              className={`${SECONDARY} text-red-700`}
              disabled={busy}
              aria-label={`Delete schedule ${s.name}`}
              onClick={() => setIsConfirming(true)}
            >
              Delete
            </button>
          </>
        )}
      </div>
      {isCode && <span className="text-xs text-neutral-600">declared in code: edit or delete it there</span>}
      {runNow.result?.ok && (
        <p role="status" className="max-w-xs text-right text-xs text-emerald-800">
          {runNow.result.message} <JobLink id={runNow.result.data.jobId} />
        </p>
      )}
      <RowFailure result={runNow.result} />
      <RowFailure result={pause.result} />
      <RowFailure result={remove.result} />
      {isConfirming && (
        <ConfirmDialog
          title={`Delete schedule ${s.name}?`}
          body={`It submits no more jobs, and its run records go with it; the ${s.runs.length ? "jobs it submitted stay in the history" : "schedule has submitted no job yet"}. This cannot be undone.`}
          confirmLabel="Yes, delete it"
          onConfirm={() => {
            setIsConfirming(false);
            remove.run({ id: s.id, seen: s.updatedAt });
          }}
          onClose={() => setIsConfirming(false)}
        />
      )}
    </div>
  );
}

type Props = {
  initial: SchedulesResponse | null;
  renderedAt: number;
  canOperate: boolean;
  tenants: { id: string; name: string }[];
  types: TypeOption[];
};

export function SchedulesView({ initial, renderedAt, canOperate, tenants, types }: Props) {
  const live = useLive(POLL_MS);
  const query = useQuery({ ...schedulesQuery(), initialData: initial ?? undefined, initialDataUpdatedAt: renderedAt, ...live.poll });
  const now = useNow({ serverNow: renderedAt });
  const [isCreating, setIsCreating] = useState(false);
  const [editing, setEditing] = useState<ScheduleWire | null>(null);
  const data = query.data;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Schedules"
        description="Periodic jobs: a cron expression in a time zone submits one job per tick, whatever the number of supervisors. Ticks missed while nothing ran are skipped but the latest, which runs once."
        live={liveStatus(live, query, { serverNow: renderedAt })}
      >
        {canOperate && (
          <button
            type="button"
            className={SECONDARY}
            aria-expanded={isCreating}
            aria-controls="new-schedule"
            onClick={() => setIsCreating((o) => !o)}
          >
            {isCreating ? "Close" : "New schedule"}
          </button>
        )}
      </PageHeader>
      {canOperate && isCreating && <ScheduleForm tenants={tenants} types={types} />}
      {canOperate && editing && <ScheduleForm key={editing.id} tenants={tenants} types={types} editing={editing} onDone={() => setEditing(null)} />}
      <QueryLoadError
        query={query}
        refreshing="Could not refresh the schedules; showing the last list received."
        loading="Could not load the schedules."
      />
      {data && (
        <PageTable
          caption="Schedules"
          rows={data.schedules}
          empty="No schedule yet. Declare one beside a worker's handlers, or create one here."
          rowKey={(s) => s.id}
          {...pausableRows<ScheduleWire>("schedule")}
          columns={columns(now, canOperate, (s) => {
            setIsCreating(false);
            setEditing(s);
          })}
        />
      )}
    </div>
  );
}
