"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { JobLink } from "@/components/cells";
import { Empty } from "@/components/charts/card";
import { DataTable, type Column } from "@/components/data-table";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { PageHeader, useLive } from "@/components/page-header";
import { Segmented } from "@/components/segmented";
import { numbers } from "@/components/numbers";
import { TimeAgo } from "@/components/time-zone";
import { StateBadge } from "@/components/state-badge";
import { useNow } from "@/components/use-now";
import { workersQuery } from "@/lib/client/queries";
import type { WorkersResponse } from "@/lib/client/wire";
import type { WorkerStatus } from "@/lib/insight/queries";
import { SILENT_AFTER_MS } from "@/lib/insight/windows";
import { formatDuration } from "@/lib/jobs/timeline";

const POLL_MS = 3_000;

const STATUS_STYLE: Record<WorkerStatus, { dot: string; text: string; label: string }> = {
  live: { dot: "bg-emerald-500", text: "text-emerald-800", label: "live" },
  silent: { dot: "bg-red-500", text: "text-red-800", label: "silent" },
  stopped: { dot: "bg-neutral-400", text: "text-neutral-600", label: "stopped" },
};

type Worker = WorkersResponse["workers"][number];

function columns(now: number): Column<Worker>[] {
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
            {w.host} · pid {w.pid} · started <TimeAgo at={new Date(w.startedAt)} now={now} />
          </div>
        </>
      ),
    },
    {
      header: "Status",
      cell: (w) => (
        <span className={`inline-flex items-center gap-1.5 text-xs font-medium ${STATUS_STYLE[w.status].text}`}>
          <span aria-hidden="true" className={`size-2 rounded-full ${STATUS_STYLE[w.status].dot}`} />
          {STATUS_STYLE[w.status].label}
        </span>
      ),
    },
    {
      header: "Heartbeat",
      className: "text-xs tabular-nums",
      cell: (w) => (
        <span className={w.status === "silent" ? "font-semibold text-red-800" : "text-neutral-600"}>
          {w.stoppedAt ? (
            <>
              stopped <TimeAgo at={new Date(w.stoppedAt)} now={now} />
            </>
          ) : (
            `${formatDuration(now ? Math.max(0, now - Date.parse(w.lastSeenAt)) : w.heartbeatAgeMs)} ago`
          )}
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
  ];
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

/** Live workers first, then silent ones (the ones to look at), then stopped; newest heartbeat first within each. */
const STATUS_ORDER: WorkerStatus[] = ["live", "silent", "stopped"];
const byStatus = (a: Worker, b: Worker) =>
  STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) || Date.parse(b.lastSeenAt) - Date.parse(a.lastSeenAt);

export function WorkersView({ initial, renderedAt }: { initial: WorkersResponse | null; renderedAt: number }) {
  const live = useLive(POLL_MS);
  const [show, setShow] = useState<WorkerStatus | "all">("all");
  const query = useQuery({ ...workersQuery(), initialData: initial ?? undefined, initialDataUpdatedAt: renderedAt, ...live.poll });
  const now = useNow({ serverNow: renderedAt });
  const data = query.data;
  const counts: Record<WorkerStatus, number> = { live: 0, silent: 0, stopped: 0 };
  for (const w of data?.workers ?? []) counts[w.status]++;
  const shown = (data?.workers ?? []).filter((w) => show === "all" || w.status === show).sort(byStatus);

  return (
    <div className="space-y-6">
      <PageHeader
        title="Workers"
        description={`Workers seen in the last day: ${counts.live} live, ${counts.silent} silent (no heartbeat for over ${SILENT_AFTER_MS / 1000} s without saying they stopped), ${counts.stopped} stopped. Attempt counts are of the last hour.`}
        live={liveStatus(live, query, { serverNow: renderedAt })}
      />
      <QueryLoadError
        query={query}
        refreshing="Could not refresh the workers; showing the last list received."
        loading="Could not load the workers."
      />
      {data && data.workers.length === 0 && <Empty>No worker has registered in the last day. Start one with npm run worker.</Empty>}
      {data && data.workers.length > 0 && (
        <>
          <Segmented
            label="Show workers"
            value={show}
            onChange={setShow}
            options={[
              { value: "all", label: `All ${data.workers.length}` },
              ...STATUS_ORDER.map((s) => ({ value: s, label: `${STATUS_STYLE[s].label} ${counts[s]}` })),
            ]}
          />
          {shown.length === 0 ? (
            <Empty>No {show} workers.</Empty>
          ) : (
            <DataTable
              framed
              caption="Workers"
              rows={shown}
              rowKey={(w) => w.id}
              rowLabel={(w) => `worker ${w.id}: ${w.status}`}
              rowClassName={(w) => (w.status === "silent" ? "bg-red-50/60" : undefined)}
              columns={columns(now)}
            />
          )}
        </>
      )}
    </div>
  );
}
