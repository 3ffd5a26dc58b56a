"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Empty } from "@/components/charts/card";
import { Freshness, PauseButton } from "@/components/freshness";
import { LoadError } from "@/components/load-error";
import { numbers } from "@/components/numbers";
import { TimeAgo } from "@/components/relative-time";
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

export function WorkersView({ initial, renderedAt }: { initial: WorkersResponse | null; renderedAt: number }) {
  const [isPaused, setIsPaused] = useState(false);
  const query = useQuery({
    ...workersQuery(),
    initialData: initial ?? undefined,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: isPaused ? false : POLL_MS,
    refetchOnWindowFocus: !isPaused,
  });
  const now = useNow({ serverNow: renderedAt });
  const data = query.data;
  const isFailing = query.errorUpdatedAt > query.dataUpdatedAt;
  const counts = { live: 0, silent: 0, stopped: 0 };
  for (const w of data?.workers ?? []) counts[w.status]++;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Workers</h1>
          <p className="mt-1 text-sm text-neutral-500">
            Workers seen in the last day: {counts.live} live, {counts.silent} silent (no heartbeat for over {SILENT_AFTER_MS / 1000} s without saying they stopped), {counts.stopped} stopped. Attempt counts are of the last hour.
          </p>
        </div>
        <div className="flex items-center gap-3">
          <Freshness updatedAt={data ? query.dataUpdatedAt : null} serverNow={renderedAt} isPaused={isPaused} isFailing={isFailing} />
          <PauseButton isPaused={isPaused} onToggle={() => setIsPaused((p) => !p)} />
        </div>
      </div>
      {isFailing && <LoadError title={data ? "Could not refresh the workers; showing the last list received." : "Could not load the workers."} message={query.error?.message} onRetry={() => void query.refetch()} />}
      {data && data.workers.length === 0 && <Empty>No worker has registered in the last day. Start one with npm run worker.</Empty>}
      {data && data.workers.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white shadow-xs">
          <table aria-label="Workers" className="w-full text-sm">
            <thead className="border-b border-neutral-200 bg-neutral-50 text-left text-xs text-neutral-500">
              <tr>
                <th className="px-4 py-2 font-medium">Worker</th>
                <th className="px-4 py-2 font-medium">Status</th>
                <th className="px-4 py-2 font-medium">Heartbeat</th>
                <th className="px-4 py-2 font-medium">Queues</th>
                <th className="px-4 py-2 font-medium">Current jobs</th>
                <th className="px-4 py-2 text-right font-medium">Finished</th>
                <th className="px-4 py-2 text-right font-medium">Failed</th>
                <th className="px-4 py-2 text-right font-medium">Reclaimed</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-neutral-100">
              {data.workers.map((w) => {
                const st = STATUS_STYLE[w.status];
                return (
                  <tr key={w.id} aria-label={`worker ${w.id}: ${w.status}`} className={w.status === "silent" ? "bg-red-50/60" : undefined}>
                    <td className="px-4 py-2 align-top">
                      <Link href={`/jobs?worker=${encodeURIComponent(w.id)}`} className="font-mono text-xs font-medium hover:underline">
                        {w.id}
                      </Link>
                      <div className="text-xs text-neutral-500">
                        {w.host} · pid {w.pid} · started <TimeAgo at={new Date(w.startedAt)} now={now} />
                      </div>
                    </td>
                    <td className="px-4 py-2 align-top">
                      <span className={`inline-flex items-center gap-1.5 text-xs font-medium ${st.text}`}>
                        <span aria-hidden="true" className={`size-2 rounded-full ${st.dot}`} />
                        {st.label}
                      </span>
                    </td>
                    <td className={`px-4 py-2 align-top text-xs tabular-nums ${w.status === "silent" ? "font-semibold text-red-800" : "text-neutral-600"}`}>
                      {w.stoppedAt ? <>stopped <TimeAgo at={new Date(w.stoppedAt)} now={now} /></> : `${formatDuration(now ? Math.max(0, now - Date.parse(w.lastSeenAt)) : w.heartbeatAgeMs)} ago`}
                    </td>
                    <td className="px-4 py-2 align-top font-mono text-xs">{w.queues.join(", ")} <span className="text-neutral-500">×{w.concurrency}</span></td>
                    <td className="px-4 py-2 align-top">
                      {w.current.length === 0 ? (
                        <span className="text-xs text-neutral-400">idle</span>
                      ) : (
                        <ul className="space-y-1">
                          {w.current.slice(0, 5).map((j) => (
                            <li key={j.id} className="flex items-center gap-2 text-xs">
                              <Link href={`/jobs/${j.id}`} className="font-mono hover:underline">{j.id.slice(0, 8)}</Link>
                              <span className="font-mono text-neutral-600">{j.type}</span>
                              <StateBadge state={j.state} />
                            </li>
                          ))}
                          {w.current.length > 5 && <li className="text-xs text-neutral-500">and {w.current.length - 5} more</li>}
                        </ul>
                      )}
                    </td>
                    <td className="px-4 py-2 text-right align-top tabular-nums">{numbers.format(w.finished)}</td>
                    <td className="px-4 py-2 text-right align-top tabular-nums">{numbers.format(w.failed)}</td>
                    <td className={`px-4 py-2 text-right align-top tabular-nums ${w.reclaimed > 0 ? "font-semibold text-orange-800" : ""}`}>{numbers.format(w.reclaimed)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
