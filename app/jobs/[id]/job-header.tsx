import Link from "next/link";
import type { ReactNode } from "react";
import { RelativeTime, Timestamp } from "@/components/time-zone";
import { CopyId } from "@/components/copy-id";
import { JobProgress } from "@/components/job-progress";
import { StateBadge } from "@/components/state-badge";
import type { JobProgress as Progress } from "@/lib/jobs/queries";
import type { JobRow } from "@/lib/jobs/types";
import { PROGRESS_STATES } from "@/lib/jobs/progress";

/** Who the job is, where it stands, and (as children) what may be done to it. */
export function JobHeader({
  job,
  progress,
  typeHistoryHref,
  now,
  status,
  tenant = false,
  children,
}: {
  job: JobRow;
  /** The running attempt's reported progress (shown while its handler may be running). */
  progress: Progress | null;
  /** Staff: the link to this job type's history charts. */
  typeHistoryHref?: string;
  now: number;
  status: ReactNode;
  tenant?: boolean;
  children: ReactNode;
}) {
  // While the attempt it belongs to may be running (a tenant's copy has no lease owner to go by).
  const shownProgress = progress && progress.attempt === job.attempt && PROGRESS_STATES.includes(job.state) ? progress : null;
  const isScheduled = job.notBefore.getTime() > now && (job.state === "queued" || job.state === "retry_wait");
  return (
    <section aria-labelledby="job-heading" className="rounded-lg border border-neutral-200 bg-white shadow-xs">
      <div className="flex flex-wrap items-start justify-between gap-4 border-b border-neutral-100 p-5">
        <div className="min-w-0 space-y-1.5">
          <div className="flex flex-wrap items-center gap-3">
            <h1 id="job-heading" className="font-mono text-xl font-semibold tracking-tight">
              {job.type}
            </h1>
            {/* A polite live region: when a poll moves the job on, a screen reader hears the new state. */}
            <span role="status" aria-label={`State: ${job.state}`}>
              <StateBadge state={job.state} />
            </span>
            {typeHistoryHref && (
              <Link href={typeHistoryHref} prefetch={false} className="text-xs font-medium text-sky-700 hover:underline">
                {job.type} over days →
              </Link>
            )}
          </div>
          <p className="flex items-center gap-1 font-mono text-xs break-all text-neutral-600">
            {job.id}
            <CopyId id={job.id} />
          </p>
          {shownProgress && (
            <div className="flex items-center gap-2 pt-1 text-xs text-neutral-600">
              <span>Attempt {shownProgress.attempt}:</span>
              <JobProgress done={shownProgress.done} total={shownProgress.total} />
            </div>
          )}
        </div>
        {status}
      </div>

      <dl className="grid grid-cols-2 gap-x-6 gap-y-4 p-5 text-sm sm:grid-cols-3 lg:grid-cols-4">
        <Item term={tenant ? "Try" : "Attempt"}>
          <span className="tabular-nums">
            {job.attempt} of {job.maxAttempts}
          </span>
        </Item>
        {/* The machinery's counter means nothing to a tenant. */}
        {!tenant && (
          <Item term="State version">
            <span className="tabular-nums">{job.stateVersion}</span>
          </Item>
        )}
        <Item term="Tenant">{job.tenantId}</Item>
        <Item term="Queue">
          <span className="font-mono">{job.queue}</span>
        </Item>
        <Item term="Priority">
          <span className="tabular-nums">{job.priority}</span>
        </Item>
        <Item term="Idempotency key">
          {job.idempotencyKey ? <span className="font-mono break-all">{job.idempotencyKey}</span> : <span className="text-neutral-600">none</span>}
        </Item>
        {job.leaseOwner && (
          <Item term="Lease">
            <span className="font-mono">{job.leaseOwner}</span>
            {job.heartbeatAt && (
              <span className="block text-neutral-600">
                heartbeat <RelativeTime at={job.heartbeatAt} now={now} />
              </span>
            )}
          </Item>
        )}
        {isScheduled && (
          <Item term="Not before">
            <Timestamp at={job.notBefore} now={now} />
          </Item>
        )}
        <Item term="Created">
          <Timestamp at={job.createdAt} now={now} />
        </Item>
        <Item term="Updated">
          <Timestamp at={job.updatedAt} now={now} />
        </Item>
        <Item term="Finished">
          {job.finishedAt ? <Timestamp at={job.finishedAt} now={now} /> : <span className="text-neutral-600">not yet</span>}
        </Item>
      </dl>

      <div className="border-t border-neutral-100 p-5">{children}</div>
    </section>
  );
}

function Item({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-neutral-600 uppercase">{term}</dt>
      <dd className="mt-1 text-neutral-900">{children}</dd>
    </div>
  );
}
