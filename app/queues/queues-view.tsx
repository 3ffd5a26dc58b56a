"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { PRIMARY, SECONDARY } from "@/components/fields";
import { actionsColumn, pausableRows, type Column } from "@/components/data-table";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { numbers, plural } from "@/components/numbers";
import { PageHeader, useLive } from "@/components/page-header";
import { PageTable } from "@/components/page-table";
import { useNow } from "@/components/use-now";
import { queuesQuery } from "@/lib/client/queries";
import type { QueuesResponse } from "@/lib/client/wire";
import { formatDuration } from "@/lib/time-format";
import type { StateCount } from "@/lib/jobs/queries";
import type { QueuePageRequest } from "@/lib/jobs/queue-stats";
import { atLimit, atWork, QueueDetail, QueueRowActions } from "./queue-controls";

const POLL_MS = 3_000;

export type QueueWire = QueuesResponse["queues"][number];

const figure = (c: StateCount) => `${numbers.format(c.n)}${c.capped ? "+" : ""}`;

/** A count that stops at its cap says so: "1,000+", "at least 1,000" to a screen reader. */
function Count({ c, label }: { c: StateCount; label: string }) {
  return (
    <span aria-label={`${label}: ${c.capped ? "at least " : ""}${numbers.format(c.n)}`} className={c.n === 0 ? "text-neutral-600" : "font-medium"}>
      {figure(c)}
    </span>
  );
}

export function Badge({ tone, children }: { tone: "amber" | "sky" | "neutral"; children: string }) {
  const cls = {
    amber: "bg-amber-50 text-amber-900 ring-amber-600/30",
    sky: "bg-sky-50 text-sky-800 ring-sky-600/20",
    neutral: "bg-neutral-100 text-neutral-700 ring-neutral-500/20",
  }[tone];
  return <span className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${cls}`}>{children}</span>;
}

function lastHour(q: QueueWire) {
  const h = q.lastHour;
  const ended = h.succeeded + h.failed + h.other;
  if (ended === 0) return <span className="text-neutral-600">nothing ended</span>;
  const sampled = h.windowMs < 3_600_000 - 1_000;
  return (
    <>
      <span className="block tabular-nums">{numbers.format(Math.round(h.perMinute * 10) / 10)}/min</span>
      <span className={`block text-xs tabular-nums ${h.failureRate && h.failureRate > 0.1 ? "font-semibold text-red-800" : "text-neutral-600"}`}>
        {h.failureRate === null ? "" : `${(h.failureRate * 100).toFixed(1)}% failed`}
        {sampled ? ` · last ${formatDuration(h.windowMs)}` : ""}
      </span>
    </>
  );
}

function columns(now: number, canOperate: boolean, open: string | null, toggle: (name: string) => void): Column<QueueWire>[] {
  const cols: Column<QueueWire>[] = [
    {
      header: "Queue",
      isRowHeader: true,
      cell: (q) => (
        <span className="flex flex-wrap items-center gap-1.5">
          <Link
            href={`/jobs?queue=${encodeURIComponent(q.name)}`}
            prefetch={false}
            className="font-mono text-sm font-medium text-sky-700 hover:underline"
          >
            {q.name}
          </Link>
          {q.paused && <Badge tone="amber">paused</Badge>}
          {q.fair && <Badge tone="sky">fair</Badge>}
        </span>
      ),
    },
    { header: "Queued", align: "right", className: "tabular-nums", cell: (q) => <Count c={q.counts.queued} label="queued" /> },
    {
      header: "Running",
      align: "right",
      className: "tabular-nums",
      cell: (q) => {
        const running = { n: q.counts.claimed.n + q.counts.running.n, capped: q.counts.claimed.capped || q.counts.running.capped };
        const held = [
          q.counts.paused.n ? `${figure(q.counts.paused)} paused` : "",
          q.counts.cancelling.n ? `${figure(q.counts.cancelling)} cancelling` : "",
        ].filter(Boolean);
        return (
          <>
            <Count c={running} label="claimed or running" />
            {held.length > 0 && <span className="block text-xs whitespace-nowrap text-neutral-600">{held.join(", ")}</span>}
          </>
        );
      },
    },
    { header: "Retry wait", align: "right", className: "tabular-nums", cell: (q) => <Count c={q.counts.retry_wait} label="waiting to retry" /> },
    {
      header: "Oldest due",
      className: "tabular-nums whitespace-nowrap",
      cell: (q) =>
        q.oldestDueAt ? (
          <span title={`due since ${q.oldestDueAt}`}>
            waiting {formatDuration(Math.max(0, (now || Date.parse(q.oldestDueAt)) - Date.parse(q.oldestDueAt)))}
          </span>
        ) : (
          <span className="text-neutral-600">none due</span>
        ),
    },
    { header: "Last hour", cell: lastHour },
    {
      header: "Workers",
      cell: (q) => {
        if (q.workers.length === 0) return <span className={q.counts.queued.n > 0 ? "font-semibold text-red-800" : "text-neutral-600"}>none</span>;
        const free = q.workers.reduce((n, w) => n + w.free, 0);
        const slots = q.workers.reduce((n, w) => n + w.concurrency, 0);
        return (
          <>
            <span className="block">{plural(q.workers.length, "worker")}</span>
            <span className="block text-xs whitespace-nowrap text-neutral-600 tabular-nums">
              {numbers.format(free)} of {numbers.format(slots)} slots free
            </span>
          </>
        );
      },
    },
    {
      header: "Limit",
      className: "tabular-nums whitespace-nowrap",
      cell: (q) => {
        if (q.concurrencyLimit === null) return <span className="text-neutral-600">none</span>;
        const full = atLimit(q);
        return (
          <>
            <span className="block">{numbers.format(q.concurrencyLimit)} at once</span>
            <span className={`block text-xs ${full ? "font-semibold text-red-800" : "text-neutral-600"}`}>
              {numbers.format(atWork(q))} at work
              {full ? `: at its limit, ${numbers.format(q.counts.queued.n)}${q.counts.queued.capped ? "+" : ""} waiting` : ""}
            </span>
          </>
        );
      },
    },
  ];
  cols.push(actionsColumn((q) => <QueueRowActions queue={q} canOperate={canOperate} isOpen={open === q.name} onToggle={() => toggle(q.name)} />));
  return cols;
}

/** The query string of a page of queues: `q` (search) and `after` (where the page starts). */
const searchOf = (r: QueuePageRequest) => {
  const p = new URLSearchParams();
  if (r.search) p.set("q", r.search);
  if (r.after) p.set("after", r.after);
  return p.toString();
};
const hrefOf = (r: QueuePageRequest) => `/queues${searchOf(r) ? `?${searchOf(r)}` : ""}`;

type ViewProps = { initial: QueuesResponse | null; renderedAt: number; canOperate: boolean; request: QueuePageRequest; problem: string | null };

export function QueuesView({ initial, renderedAt, canOperate, request, problem }: ViewProps) {
  const live = useLive(POLL_MS);
  const query = useQuery({ ...queuesQuery(searchOf(request)), initialData: initial ?? undefined, initialDataUpdatedAt: renderedAt, ...live.poll });
  const now = useNow({ serverNow: renderedAt });
  const [open, setOpen] = useState<string | null>(null);
  const data = query.data;
  const paused = data?.queues.filter((q) => q.paused).length ?? 0;
  const searching = !!request.search;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Queues"
        description={`Every queue with jobs, settings or a worker, by name${paused ? `; ${plural(paused, "queue")} paused on this page` : ""}. Counts stop at 1,000 ("1,000+"). A paused queue gives its jobs to no worker; jobs already running finish.`}
        live={liveStatus(live, query, { serverNow: renderedAt })}
      />
      <form method="get" action="/queues" role="search" aria-label="Find a queue" className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col text-sm font-medium text-neutral-700">
          Queue name contains
          <input
            name="q"
            type="search"
            defaultValue={request.search ?? ""}
            maxLength={100}
            className="mt-1 w-64 rounded-md border border-neutral-300 px-2 py-1.5 font-mono text-sm"
          />
        </label>
        <button type="submit" className={PRIMARY}>
          Find
        </button>
        {(searching || request.after) && (
          <Link href="/queues" className={SECONDARY}>
            All queues
          </Link>
        )}
      </form>
      {problem && (
        <p role="status" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Ignored the search in the address: {problem}.
        </p>
      )}
      <QueryLoadError query={query} refreshing="Could not refresh the queues; showing the last list received." loading="Could not load the queues." />
      {data && (
        <PageTable
          caption="Queues"
          rows={data.queues}
          empty={
            searching
              ? `No queue's name contains "${request.search}".`
              : request.after
                ? "No more queues."
                : "No queue has jobs, settings or a worker yet."
          }
          rowKey={(q) => q.name}
          {...pausableRows<QueueWire>("queue")}
          columns={columns(now, canOperate, open, (name) => setOpen((o) => (o === name ? null : name)))}
          detail={(q) => (open === q.name ? <QueueDetail queue={q} now={now} canOperate={canOperate} /> : null)}
          detailId={(q) => `queue-${q.name}-settings`}
        />
      )}
      {data && (request.after || data.next) && (
        <nav aria-label="Pages" className="flex items-center justify-end gap-2 text-sm">
          {request.after && (
            <Link href={hrefOf({ search: request.search })} className={SECONDARY}>
              First page
            </Link>
          )}
          {data.next && (
            <Link href={hrefOf({ search: request.search, after: data.next })} rel="next" className={SECONDARY}>
              Next page →
            </Link>
          )}
        </nav>
      )}
    </div>
  );
}
