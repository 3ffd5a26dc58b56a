"use client";

import Link from "next/link";
import { useEffect, useRef, type ReactNode } from "react";
import { JobLink, None } from "@/components/cells";
import { PoisonBadge } from "@/components/charts/poison-badge";
import { DataTable, type Column } from "@/components/data-table";
import { JobProgress } from "@/components/job-progress";
import { TimeAgo } from "@/components/time-zone";
import { StateBadge } from "@/components/state-badge";
import { useNow } from "@/components/use-now";
import type { JobWire } from "@/lib/client/wire";
import { POISON_SUSPECT_CRASHES } from "@/lib/insight/windows";
import { shortId } from "@/lib/jobs/short-id";
import { formatDuration } from "@/lib/time-format";

type Props = {
  jobs: JobWire[];
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
  onTogglePage: (select: boolean) => void;
  /** Checkboxes only for those who may act on a selection (bulk actions). */
  selectable: boolean;
  /** Staff see the tenant and the last worker; a tenant member sees neither (they mean nothing to them). */
  isStaff?: boolean;
  /** Under a lookup by a piece of an id: what of each row's id matched. */
  match?: (id: string) => ReactNode;
};

const CHECKBOX = "size-4 rounded border-neutral-300 accent-neutral-900";

/** Untrusted text (types, queues, tenants, error classes) as plain text, cut short with the whole value in a title. */
function Clip({ value, width, mono }: { value: string | null; width: string; mono?: boolean }) {
  if (!value) return <None />;
  return (
    <span title={value} className={`block truncate ${width} ${mono ? "font-mono text-xs" : ""}`}>
      {value}
    </span>
  );
}

/** From submit to finish, or so far: "12m", "3m 05s so far". */
function durationOf(job: JobWire, now: number): string | null {
  if (!job.finishedAt && now === 0) return null;
  const ms = (job.finishedAt ? Date.parse(job.finishedAt) : now) - Date.parse(job.createdAt);
  return `${formatDuration(Math.max(0, ms))}${job.finishedAt ? "" : " so far"}`;
}

/** From submit to finish, or so far. */
function duration(job: JobWire, now: number): string | null {
  if (!job.finishedAt && now === 0) return null;
  const ms = (job.finishedAt ? Date.parse(job.finishedAt) : now) - Date.parse(job.createdAt);
  const d = formatDuration(Math.max(0, ms));
  return job.finishedAt ? `took ${d}` : `${d} so far`;
}

function columns(p: Props, now: number): Column<JobWire>[] {
  const onPage = p.jobs.filter((j) => p.selected.has(j.id)).length;
  const all = p.jobs.length > 0 && onPage === p.jobs.length;
  const select: Column<JobWire> = {
    header: "Select",
    hideHeader: true,
    headerCell: <PageCheckbox checked={all} indeterminate={onPage > 0 && !all} disabled={!p.jobs.length} onChange={p.onTogglePage} />,
    className: "w-10",
    cell: (job) => (
      <input
        type="checkbox"
        checked={p.selected.has(job.id)}
        onChange={() => p.onToggle(job.id)}
        aria-label={`Select job ${job.id}`}
        className={CHECKBOX}
      />
    ),
  };
  return [
    ...(p.selectable ? [select] : []),
    {
      header: "Job",
      cell: (job) => (
        <>
          <JobLink id={job.id} />
          {p.match?.(job.id)}
        </>
      ),
    },
    {
      header: "State",
      cell: (job) => (
        <span className="flex items-center gap-1.5">
          <StateBadge state={job.state} />
          {p.isStaff !== false && job.crashes >= POISON_SUSPECT_CRASHES && <PoisonBadge crashes={job.crashes} />}
          {job.progress && <JobProgress done={job.progress.done} total={job.progress.total} compact />}
        </span>
      ),
    },
    { header: "Type", cell: (job) => <Clip value={job.type} width="max-w-40" mono /> },
    ...(p.isStaff !== false ? [{ header: "Tenant", cell: (job: JobWire) => <Clip value={job.tenantId} width="max-w-24" /> }] : []),
    { header: "Queue", cell: (job) => <Clip value={job.queue} width="max-w-32" mono /> },
    {
      header: p.isStaff !== false ? "Attempt" : "Try",
      align: "right",
      className: "whitespace-nowrap tabular-nums",
      cell: (job) => (
        <>
          {job.attempt}
          <span className="text-neutral-600"> / {job.maxAttempts}</span>
        </>
      ),
    },
    { header: "Last error", cell: (job) => <Clip value={job.lastErrorClass} width="max-w-36" mono /> },
    ...(p.isStaff !== false ? [{ header: "Last worker", cell: (job: JobWire) => <Clip value={job.lastWorker} width="max-w-28" mono /> }] : []),
    { header: "Created", className: "text-neutral-600", cell: (job) => <TimeAgo at={new Date(job.createdAt)} now={now} /> },
    { header: "Finished", className: "text-neutral-600", cell: (job) => <TimeAgo at={job.finishedAt ? new Date(job.finishedAt) : null} now={now} /> },
    {
      header: "Duration",
      align: "right",
      className: "whitespace-nowrap tabular-nums",
      // Submit to finish, or so far (the list's "longest first" sorts by the same).
      cell: (job) => <span title={job.finishedAt ? "from submit to finish" : "from submit, so far"}>{durationOf(job, now) ?? <None />}</span>,
    },
  ];
}

/** The jobs of the page: a table on a wide screen, a list of compact rows on a phone. */
export function JobsTable(props: Props) {
  const { jobs, selected } = props;
  // Minutes and hours need no per-second tick: a relative time here may lag by up to ten seconds.
  const now = useNow({ tickMs: 10_000 });
  return (
    <>
      <DataTable
        framed
        stackOnPhone={false}
        valign="middle"
        className="hidden sm:block"
        caption="Jobs, newest first"
        rows={jobs}
        rowKey={(j) => j.id}
        rowClassName={(j) => (selected.has(j.id) ? "bg-sky-50/60" : "hover:bg-neutral-50")}
        columns={columns(props, now)}
      />
      <ul aria-label="Jobs, newest first" className="divide-y divide-neutral-100 rounded-lg border border-neutral-200 bg-white shadow-xs sm:hidden">
        {jobs.map((job) => (
          <PhoneRow key={job.id} job={job} now={now} {...props} />
        ))}
      </ul>
    </>
  );
}

/** A job on a phone: state, type, short id, tenant, age and duration (and progress while it runs); the type links to the job. */
function PhoneRow({ job, now, selectable, selected, onToggle }: Props & { job: JobWire; now: number }) {
  const took = duration(job, now);
  return (
    <li className={`flex items-start gap-3 px-3 py-2.5 ${selected.has(job.id) ? "bg-sky-50/60" : ""}`}>
      {selectable && (
        <input
          type="checkbox"
          checked={selected.has(job.id)}
          onChange={() => onToggle(job.id)}
          aria-label={`Select job ${job.id}`}
          className={`${CHECKBOX} mt-1`}
        />
      )}
      <div className="min-w-0 flex-1 space-y-1">
        <div className="flex items-center justify-between gap-2">
          <Link href={`/jobs/${job.id}`} prefetch={false} className="min-w-0 truncate font-mono text-sm font-medium text-sky-700 hover:underline">
            {job.type}
          </Link>
          <StateBadge state={job.state} />
        </div>
        {job.progress && <JobProgress done={job.progress.done} total={job.progress.total} />}
        <p className="flex flex-wrap gap-x-2 text-xs text-neutral-600">
          {/* The id people quote and paste: the same short form as the table's Job column. */}
          <span title={job.id} className="font-mono">
            {shortId(job.id)}
          </span>
          <span aria-hidden="true">·</span>
          <span>{job.tenantId}</span>
          <span aria-hidden="true">·</span>
          <span>
            submitted <TimeAgo at={new Date(job.createdAt)} now={now} />
          </span>
          {took && (
            <>
              <span aria-hidden="true">·</span>
              <span className="tabular-nums">{took}</span>
            </>
          )}
        </p>
      </div>
    </li>
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
      className={CHECKBOX}
    />
  );
}
