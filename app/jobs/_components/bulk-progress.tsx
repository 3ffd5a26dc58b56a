"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { numbers } from "@/components/numbers";
import { ProgressBar } from "@/components/progress-bar";
import { bulkProgressQuery, keys } from "@/lib/client/queries";
import { capitalize } from "./bulk-bar";
import { refusalWords } from "./refusals";
import { ResultLink } from "./result-link";

/** A confirmed bulk action: its progress while it runs, then what it did. */
export function BulkProgressPanel({ operationId, onDismiss }: { operationId: string; onDismiss: () => void }) {
  const client = useQueryClient();
  const query = useQuery(bulkProgressQuery(operationId));
  const p = query.data;
  const isDone = !!p && p.status !== "running";
  useEffect(() => {
    // The list shows the result at once instead of at its next poll.
    if (isDone) void client.invalidateQueries({ queryKey: keys.jobs.all });
  }, [isDone, client]);

  return (
    <section aria-label="Bulk action progress" className="rounded-lg border border-neutral-200 bg-white p-4 shadow-xs">
      <div className="flex items-start justify-between gap-3">
        <div role="status" aria-live="polite" className="text-sm">
          <p className="font-medium">
            {p ? `${capitalize(p.event)} · ${p.description}` : "Bulk action"}
            <span className={`ml-2 ${p?.status === "done" ? "text-emerald-700" : p?.status === "failed" ? "text-red-700" : "text-neutral-600"}`}>
              {!p ? "starting…" : p.status === "running" ? "running…" : p.status === "done" ? "done" : "stopped by an error"}
            </span>
          </p>
          {p && (
            <p className="mt-1 text-neutral-600 tabular-nums">
              {numbers.format(p.done)} of {numbers.format(p.total)} processed · applied {numbers.format(p.applied)} · refused{" "}
              {numbers.format(p.done - p.applied)}
            </p>
          )}
          {query.isError && !p && <p className="mt-1 text-red-700">{query.error.message}</p>}
        </div>
        {isDone && (
          <button
            type="button"
            onClick={onDismiss}
            className="rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 hover:text-neutral-800 focus-visible:outline-2 focus-visible:outline-neutral-900"
          >
            Dismiss
          </button>
        )}
      </div>
      <ProgressBar label="Bulk action progress" done={p?.done ?? 0} total={p?.total ?? 0} isFailed={p?.status === "failed"} />
      <ResultLink operationId={operationId} onlyJobId={null} total={p?.total ?? null} className="mt-3" />
      {isDone && p.refused.length > 0 && (
        <ul aria-label="Refused jobs by reason" className="mt-3 space-y-1 text-sm">
          {p.refused.map((r) => (
            <li key={r.kind} className="flex flex-wrap gap-x-2">
              <span className="font-medium tabular-nums">{numbers.format(r.count)}</span>
              <span>{refusalWords(r.kind)}</span>
              <span className="min-w-0 truncate text-neutral-600" title={r.sampleReason}>
                e.g. {r.sampleReason}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
