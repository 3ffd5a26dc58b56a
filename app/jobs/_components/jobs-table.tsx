"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import { TimeAgo } from "@/components/relative-time";
import { StateBadge } from "@/components/state-badge";
import { useNow } from "@/components/use-now";
import { PoisonBadge } from "@/components/charts/poison-badge";
import { POISON_LOSSES } from "@/lib/insight/windows";
import type { JobWire } from "@/lib/client/wire";

type Props = {
  jobs: JobWire[];
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
  onTogglePage: (select: boolean) => void;
  /** Checkboxes only for those who may act on a selection (bulk actions). */
  selectable: boolean;
};

const TH = "px-3 py-2 text-left text-xs font-medium whitespace-nowrap text-neutral-500";
const TD = "px-3 py-2 align-middle";

/** Untrusted text (types, queues, tenants, error classes) as plain text, cut short with the whole value in a title. */
function Clip({ value, width, mono }: { value: string | null; width: string; mono?: boolean }) {
  if (!value) return <span className="text-neutral-400">—</span>;
  return (
    <span title={value} className={`block truncate ${width} ${mono ? "font-mono text-xs" : ""}`}>
      {value}
    </span>
  );
}

export function JobsTable({ jobs, selected, onToggle, onTogglePage, selectable }: Props) {
  const onPage = jobs.filter((j) => selected.has(j.id)).length;
  const all = jobs.length > 0 && onPage === jobs.length;
  // Minutes and hours need no per-second tick: a relative time here may lag by up to ten seconds.
  const now = useNow({ tickMs: 10_000 });
  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white shadow-xs">
      <table className="w-full text-sm">
        <caption className="sr-only">Jobs, newest first</caption>
        <thead className="border-b border-neutral-200 bg-neutral-50">
          <tr>
            {selectable && (
              <th scope="col" className="w-10 px-3 py-2">
                <PageCheckbox checked={all} indeterminate={onPage > 0 && !all} disabled={!jobs.length} onChange={onTogglePage} />
              </th>
            )}
            <th scope="col" className={TH}>Job</th>
            <th scope="col" className={TH}>State</th>
            <th scope="col" className={TH}>Type</th>
            <th scope="col" className={TH}>Tenant</th>
            <th scope="col" className={TH}>Queue</th>
            <th scope="col" className={`${TH} text-right`}>Attempt</th>
            <th scope="col" className={TH}>Last error</th>
            <th scope="col" className={TH}>Last worker</th>
            <th scope="col" className={TH}>Created</th>
            <th scope="col" className={TH}>Finished</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-100">
          {jobs.map((job) => {
            const isSelected = selected.has(job.id);
            return (
              <tr key={job.id} className={isSelected ? "bg-sky-50/60" : "hover:bg-neutral-50"}>
                {selectable && <td className="w-10 px-3 py-2">
                  <input
                    type="checkbox"
                    checked={isSelected}
                    onChange={() => onToggle(job.id)}
                    aria-label={`Select job ${job.id}`}
                    className="size-4 rounded border-neutral-300 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-neutral-900"
                  />
                </td>}
                <td className={TD}>
                  {/* No prefetch: fifty job pages fetched at once would hold the browser's connections and delay the poll. */}
                  <Link
                    href={`/jobs/${job.id}`}
                    prefetch={false}
                    title={job.id}
                    className="rounded font-mono text-xs font-medium text-sky-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-700"
                  >
                    {job.id.slice(0, 8)}
                  </Link>
                </td>
                <td className={TD}>
                  <span className="flex items-center gap-1.5">
                    <StateBadge state={job.state} />
                    {job.leaseLosses >= POISON_LOSSES && <PoisonBadge losses={job.leaseLosses} />}
                  </span>
                </td>
                <td className={TD}><Clip value={job.type} width="max-w-40" mono /></td>
                <td className={TD}><Clip value={job.tenantId} width="max-w-24" /></td>
                <td className={TD}><Clip value={job.queue} width="max-w-32" mono /></td>
                <td className={`${TD} text-right whitespace-nowrap tabular-nums`}>
                  {job.attempt}
                  <span className="text-neutral-400"> / {job.maxAttempts}</span>
                </td>
                <td className={TD}><Clip value={job.lastErrorClass} width="max-w-36" mono /></td>
                <td className={TD}><Clip value={job.lastWorker} width="max-w-28" mono /></td>
                <td className={`${TD} text-neutral-600`}><TimeAgo at={new Date(job.createdAt)} now={now} /></td>
                <td className={`${TD} text-neutral-600`}><TimeAgo at={job.finishedAt ? new Date(job.finishedAt) : null} now={now} /></td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function PageCheckbox(props: { checked: boolean; indeterminate: boolean; disabled: boolean; onChange: (select: boolean) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  // `indeterminate` is a DOM property with no attribute: set it after render.
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = props.indeterminate;
  }, [props.indeterminate]);
  return (
    <input
      ref={ref}
      type="checkbox"
      checked={props.checked}
      disabled={props.disabled}
      onChange={(e) => props.onChange(e.currentTarget.checked)}
      aria-label="Select all on this page"
      className="size-4 rounded border-neutral-300 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-neutral-900"
    />
  );
}
