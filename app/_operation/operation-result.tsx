"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { numbers, plural } from "@/components/numbers";
import { ProgressBar } from "@/components/progress-bar";
import { operationProgressQuery } from "@/lib/client/queries";
import type { JobOutcome, OperationResult } from "@/lib/client/wire";
import { shortId } from "@/lib/jobs/short-id";
import { operationHref } from "../jobs/_components/url";

/**
 * Why a job was not moved, in words: the one set of outcome labels (lib/jobs/bulk.ts BulkOutcome),
 * each led by its kind as the rejections page and the audit log name it.
 */
const REFUSAL_WORDS: Record<string, string> = {
  conflict: "conflict: the job moved after the dry run",
  illegal: "illegal: the action is not allowed from its state now",
  drift: "drift: the row changed outside the write path",
  not_found: "not found: the job no longer exists",
  error: "error: the write failed",
  kept: "kept: no longer finished, or held by another action",
};
const refusalWords = (kind: string) => REFUSAL_WORDS[kind] ?? kind;
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const LINK = "inline-block text-sm font-medium text-sky-800 underline underline-offset-2 hover:text-sky-950";

/**
 * THE progress and result view of an operation on jobs, applied at once or run by a worker: one
 * job's outcome in a line, or the counts (applied, refused by kind) with the progress of a
 * durable operation, polled until it is over. `onSettled` once it is over (to refresh the page).
 * `isOnJobPage`: one job's line needs no link to the job.
 */
export function OperationResultView({
  result,
  onSettled,
  isOnJobPage = false,
}: {
  result: OperationResult;
  onSettled?: () => void;
  isOnJobPage?: boolean;
}) {
  const id = result.operationId;
  const poll = useQuery({ ...operationProgressQuery(id ?? ""), enabled: id !== null && result.status === "running" });
  const r = poll.data ?? result;
  const isRunning = r.status === "running";

  // Once per operation: the latest callback, called when it is over.
  const settled = useRef(onSettled);
  useEffect(() => {
    settled.current = onSettled;
  });
  useEffect(() => {
    if (!isRunning) settled.current?.();
  }, [isRunning]);

  const only = id === null && r.jobs.length === 1 ? r.jobs[0]! : null;
  if (only) {
    return (
      <div className="space-y-2 text-sm">
        <p>
          <JobLine event={r.event} job={only} />
        </p>
        {!isOnJobPage && (
          <Link href={`/jobs/${only.id}`} prefetch={false} className={LINK}>
            Open the job and follow it →
          </Link>
        )}
      </div>
    );
  }
  const refused = r.refused.reduce((n, x) => n + x.count, 0);
  return (
    <section aria-label="Operation result" className="space-y-3 text-sm">
      <div>
        <div className="flex justify-between text-neutral-600">
          <span role="status">
            {isRunning ? "Applying…" : r.status === "failed" ? `${capitalize(r.event)} stopped by an error.` : `${capitalize(r.event)} finished.`}
          </span>
          <span className="tabular-nums">
            {numbers.format(r.done)} of {numbers.format(r.total)} processed
          </span>
        </div>
        {id && <ProgressBar label="Operation progress" done={r.done} total={r.total} isFailed={r.status === "failed"} />}
      </div>
      {r.message && <p className="text-neutral-800">{r.message}</p>}
      {poll.isError && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-red-900">
          Could not read the progress: {poll.error.message}
        </p>
      )}
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-neutral-600">Applied</dt>
        <dd className="font-semibold tabular-nums" aria-label={`applied: ${r.applied}`}>
          {numbers.format(r.applied)}
        </dd>
        <dt className="text-neutral-600">Refused</dt>
        <dd className="tabular-nums" aria-label={`refused: ${refused}`}>
          {numbers.format(refused)}
        </dd>
      </dl>
      {r.refused.length > 0 && (
        <ul aria-label="Refused" className="space-y-1.5">
          {r.refused.map((x) => (
            <li key={x.kind} className="rounded-md bg-amber-50 px-3 py-2 text-amber-950">
              <span className="font-medium">
                {plural(x.count, "job")} refused — {refusalWords(x.kind)}
              </span>
              {/* Applied at once, each job's refusal is listed below in words. */}
              {x.sampleReason && r.jobs.length === 0 && (
                <span className="mt-0.5 block text-xs break-words text-amber-900">e.g. {x.sampleReason}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {r.jobs.length > 1 && (
        <ul aria-label="Jobs" className="space-y-0.5 text-xs">
          {r.jobs.map((j) => (
            <li key={j.id}>
              <Link href={`/jobs/${j.id}`} prefetch={false} className="font-mono text-sky-800 underline underline-offset-2">
                {shortId(j.id)}
              </Link>{" "}
              <JobLine event={r.event} job={j} />
            </li>
          ))}
        </ul>
      )}
      {isRunning && <p className="text-neutral-600">It goes on if you close this: a worker applies it, and a restart loses nothing.</p>}
      {id && (
        <Link href={operationHref(id)} prefetch={false} className={LINK}>
          The {numbers.format(r.total)} jobs it touched, and how they end →
        </Link>
      )}
    </section>
  );
}

/** One job's outcome: where it went, or why it was not moved (who moved it first). */
function JobLine({ event, job }: { event: string; job: JobOutcome }) {
  if (job.outcome === "applied") {
    return (
      <span className="font-medium text-emerald-800">
        Applied: {event} → {job.state} <span className="font-normal text-emerald-700">(version {job.stateVersion})</span>
      </span>
    );
  }
  return <span className="font-medium text-red-800">{job.message || refusalWords(job.outcome)}</span>;
}
