"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { JobLink } from "@/components/cells";
import { Empty } from "@/components/charts/card";
import { DataTable, type Column } from "@/components/data-table";
import { SECONDARY } from "@/components/fields";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { PageHeader, useLive } from "@/components/page-header";
import { Segmented } from "@/components/segmented";
import { numbers, plural } from "@/components/numbers";
import { TimeAgo } from "@/components/time-zone";
import { StateBadge } from "@/components/state-badge";
import { useNow } from "@/components/use-now";
import { keys, workersQuery } from "@/lib/client/queries";
import type { WorkersResponse } from "@/lib/client/wire";
import type { WorkerStatus } from "@/lib/insight/queries";
import { SILENT_AFTER_MS } from "@/lib/insight/windows";
import { formatAgo, formatDuration } from "@/lib/time-format";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { ResultNote, useAction } from "@/components/use-action";
import { drainWorkerAction } from "./actions";

const POLL_MS = 3_000;
/** A worker that crashed or stopped longer ago than this is "long gone": hidden unless asked for. */
const GONE_AFTER_MS = 5 * 60_000;
/** Workers beat every second: a live one this late may be gone (it is called crashed after SILENT_AFTER_MS). */
const LATE_AFTER_MS = 5_000;

const STATUS_STYLE: Record<WorkerStatus, { dot: string; text: string; label: string }> = {
  live: { dot: "bg-emerald-500", text: "text-emerald-800", label: "live" },
  draining: { dot: "bg-amber-500", text: "text-amber-800", label: "draining" },
  crashed: { dot: "bg-red-500", text: "text-red-800", label: "crashed" },
  stopped: { dot: "bg-neutral-400", text: "text-neutral-600", label: "stopped" },
};
/** Running first, then the ones to look at (crashed), then stopped; newest heartbeat first within each. */
const STATUS_ORDER: WorkerStatus[] = ["live", "draining", "crashed", "stopped"];

type Worker = WorkersResponse["workers"][number];

const isRunning = (w: Worker) => w.status === "live" || w.status === "draining";
const isGone = (w: Worker, now: number) => !isRunning(w) && now - Date.parse(w.stoppedAt ?? w.lastSeenAt) > GONE_AFTER_MS;
const byStatus = (a: Worker, b: Worker) =>
  STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) || Date.parse(b.lastSeenAt) - Date.parse(a.lastSeenAt);

function StatusCell({ w, now }: { w: Worker; now: number }) {
  const style = STATUS_STYLE[w.status];
  const drained = w.drainRequestedAt !== null;
  return (
    <>
      <span className={`inline-flex items-center gap-1.5 text-xs font-medium ${style.text}`}>
        <span aria-hidden="true" className={`size-2 rounded-full ${style.dot}`} />
        {style.label}
      </span>
      <span className="block text-xs text-neutral-600">
        {w.status === "crashed" && (
          <>
            last heartbeat <TimeAgo at={new Date(w.lastSeenAt)} now={now} />, never said it stopped
          </>
        )}
        {/* As of the answer (its server's clock), not of now: an answer that is late itself does not make every worker late. */}
        {isRunning(w) && w.heartbeatAgeMs > LATE_AFTER_MS && (
          <span className="block font-medium text-amber-800">no heartbeat for {formatDuration(w.heartbeatAgeMs)}</span>
        )}
        {w.status === "draining" && (
          <>
            asked by {w.drainRequestedBy ?? "an operator"} <TimeAgo at={new Date(w.drainRequestedAt!)} now={now} />
          </>
        )}
        {w.status === "stopped" && (
          <>
            {drained ? `drained at ${w.drainRequestedBy ?? "an operator"}'s request` : "shut down"} <TimeAgo at={new Date(w.stoppedAt!)} now={now} />
          </>
        )}
      </span>
    </>
  );
}

type Drain = { pending: boolean; onDrain: (id: string) => void } | null;

function columns(now: number, drain: Drain): Column<Worker>[] {
  return [
    {
      header: "Worker",
      isRowHeader: true,
      cell: (w) => (
        <>
          <Link href={`/jobs?worker=${encodeURIComponent(w.id)}`} prefetch={false} className="font-mono text-xs font-medium hover:underline">
            {w.id}
          </Link>
          <div className="text-xs text-neutral-600">
            pid {w.pid} · started <TimeAgo at={new Date(w.startedAt)} now={now} />
          </div>
        </>
      ),
    },
    { header: "Status", cell: (w) => <StatusCell w={w} now={now} /> },
    {
      header: "Heartbeat",
      className: "text-xs tabular-nums",
      cell: (w) => (
        <span className={w.status === "crashed" ? "font-semibold text-red-800" : "text-neutral-600"}>
          {formatAgo(now ? now - Date.parse(w.lastSeenAt) : w.heartbeatAgeMs)}
        </span>
      ),
    },
    {
      header: "Queues",
      className: "font-mono text-xs",
      cell: (w) => (
        <>
          {w.queues.join(", ")} <span className="text-neutral-600">×{w.concurrency}</span>
        </>
      ),
    },
    { header: "Current jobs", cell: (w) => <CurrentJobs jobs={w.current} /> },
    { header: "Finished", align: "right", className: "tabular-nums", cell: (w) => numbers.format(w.finished) },
    { header: "Failed", align: "right", className: "tabular-nums", cell: (w) => numbers.format(w.failed) },
    {
      header: "Reclaimed",
      align: "right",
      className: "tabular-nums",
      cell: (w) => <span className={w.reclaimed > 0 ? "font-semibold text-orange-800" : ""}>{numbers.format(w.reclaimed)}</span>,
    },
    ...(drain
      ? [
          {
            header: "Actions",
            hideHeader: true,
            cell: (w: Worker) => (w.status === "live" ? <DrainButton worker={w} pending={drain.pending} onDrain={drain.onDrain} /> : null),
          },
        ]
      : []),
  ];
}

/** Ask a live worker process to drain, after saying what that does. */
function DrainButton({ worker, pending, onDrain }: { worker: Worker; pending: boolean; onDrain: (id: string) => void }) {
  const [isAsking, setIsAsking] = useState(false);
  const held = worker.current.length;
  return (
    <>
      <button type="button" className={SECONDARY} disabled={pending} aria-label={`Drain worker ${worker.id}`} onClick={() => setIsAsking(true)}>
        {pending ? "Asking…" : "Drain"}
      </button>
      {isAsking && (
        <ConfirmDialog
          title={`Drain worker ${worker.id}?`}
          body={`It stops claiming jobs, finishes the ${plural(held, "job")} it holds (up to its drain timeout; anything still running then is reclaimed later), and exits, as on SIGTERM. npm start (or your process manager) starts a fresh worker in its place.`}
          confirmLabel="Drain it"
          onConfirm={() => {
            setIsAsking(false);
            onDrain(worker.id);
          }}
          onClose={() => setIsAsking(false)}
        />
      )}
    </>
  );
}

function CurrentJobs({ jobs }: { jobs: Worker["current"] }) {
  if (jobs.length === 0) return <span className="text-xs text-neutral-600">idle</span>;
  return (
    <ul className="space-y-1">
      {jobs.slice(0, 5).map((j) => (
        <li key={j.id} className="flex items-center gap-2 text-xs">
          <JobLink id={j.id} />
          <span className="font-mono text-neutral-600">{j.type}</span>
          <StateBadge state={j.state} />
        </li>
      ))}
      {jobs.length > 5 && <li className="text-xs text-neutral-600">and {jobs.length - 5} more</li>}
    </ul>
  );
}

/** The hosts in order: those with running workers first (most first), then by name. */
function byHost(workers: Worker[]): [string, Worker[]][] {
  const hosts = new Map<string, Worker[]>();
  for (const w of workers) hosts.set(w.host, [...(hosts.get(w.host) ?? []), w]);
  const running = (ws: Worker[]) => ws.filter(isRunning).length;
  return [...hosts].sort(([a, x], [b, y]) => running(y) - running(x) || a.localeCompare(b));
}

export function WorkersView({ initial, renderedAt, canOperate }: { initial: WorkersResponse | null; renderedAt: number; canOperate: boolean }) {
  const live = useLive(POLL_MS);
  const [show, setShow] = useState<WorkerStatus | "all">("all");
  const [showGone, setShowGone] = useState(false);
  const query = useQuery({ ...workersQuery(), initialData: initial ?? undefined, initialDataUpdatedAt: renderedAt, ...live.poll });
  const now = useNow({ serverNow: renderedAt });
  const data = query.data;
  const all = data?.workers ?? [];
  const gone = all.filter((w) => isGone(w, now || renderedAt));
  const recent = showGone ? all : all.filter((w) => !isGone(w, now || renderedAt));
  const counts: Record<WorkerStatus, number> = { live: 0, draining: 0, crashed: 0, stopped: 0 };
  for (const w of recent) counts[w.status]++;
  const shown = recent.filter((w) => show === "all" || w.status === show).sort(byStatus);
  const window = showGone ? "in the last day" : `now or in the last ${GONE_AFTER_MS / 60_000} minutes`;
  // One drain at a time; its answer stays above the list (the row itself changes as the worker drains).
  const op = useAction(drainWorkerAction, { invalidate: [keys.insight.workers()] });
  const drain: Drain = canOperate ? { pending: op.pending, onDrain: (id) => op.run({ id }) } : null;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Workers"
        description={`Worker processes by host, ${window}: ${counts.live} live, ${counts.draining} draining, ${counts.crashed} crashed (no heartbeat for over ${SILENT_AFTER_MS / 1000} s without saying they stopped), ${counts.stopped} stopped. Attempt counts are since each worker started.`}
        live={liveStatus(live, query, { serverNow: renderedAt })}
      />
      <QueryLoadError
        query={query}
        refreshing="Could not refresh the workers; showing the last list received."
        loading="Could not load the workers."
      />
      <ResultNote result={op.result} />
      {data && all.length === 0 && <Empty>No worker has registered in the last day. Start one with npm run worker.</Empty>}
      {data && all.length > 0 && (
        <>
          <div className="flex flex-wrap items-center gap-x-6 gap-y-3">
            <Segmented
              label="Show workers"
              value={show}
              onChange={setShow}
              options={[
                { value: "all", label: `All ${recent.length}` },
                ...STATUS_ORDER.map((s) => ({ value: s, label: `${STATUS_STYLE[s].label} ${counts[s]}` })),
              ]}
            />
            {gone.length > 0 && (
              <label className="inline-flex items-center gap-2 text-sm text-neutral-700">
                <input
                  type="checkbox"
                  checked={showGone}
                  onChange={(e) => setShowGone(e.currentTarget.checked)}
                  className="size-4 accent-neutral-900"
                />
                Show the {plural(gone.length, "worker")} gone for over {GONE_AFTER_MS / 60_000} minutes
              </label>
            )}
          </div>
          {shown.length === 0 ? (
            <Empty>{show === "all" ? `No worker ${window}.` : `No ${show} workers ${window}.`}</Empty>
          ) : (
            byHost(shown).map(([host, workers]) => (
              <section key={host} aria-labelledby={`host-${host}`} className="space-y-2">
                <h2 id={`host-${host}`} className="flex flex-wrap items-baseline gap-x-3 text-sm font-semibold">
                  <span>
                    Host <span className="font-mono">{host}</span>
                  </span>
                  <span className="text-xs font-normal text-neutral-600">
                    {STATUS_ORDER.filter((s) => workers.some((w) => w.status === s))
                      .map((s) => `${workers.filter((w) => w.status === s).length} ${STATUS_STYLE[s].label}`)
                      .join(" · ")}
                  </span>
                </h2>
                <DataTable
                  framed
                  caption={`Workers on host ${host}`}
                  rows={workers}
                  rowKey={(w) => w.id}
                  rowLabel={(w) => `worker ${w.id}: ${w.status}`}
                  rowClassName={(w) => (w.status === "crashed" ? "bg-red-50/60" : undefined)}
                  columns={columns(now, drain)}
                />
              </section>
            ))
          )}
        </>
      )}
    </div>
  );
}
