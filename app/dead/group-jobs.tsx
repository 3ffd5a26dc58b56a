"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatAgo, formatUtcLong } from "@/components/relative-time";
import { deadJobsQuery } from "@/lib/client/queries";
import type { DeadGroupDto } from "@/lib/client/wire";
import { groupName, NO_ERROR } from "./groups";
import type { ReplaySelectionInput } from "./replay-types";
import { scopeToSearch, type DeadScopeParams } from "./scope";

const POLL_MS = 5_000;

type Props = {
  group: DeadGroupDto;
  scope: DeadScopeParams;
  isPaused: boolean;
  selected: ReadonlySet<string>;
  onToggle: (ids: string[], on: boolean) => void;
  onReplay?: (selection: ReplaySelectionInput, title: string) => void;
};

/** One group's jobs, newest death first, with checkboxes and a replay per job (for those who may replay). */
export function GroupJobs({ group, scope, isPaused, selected, onToggle, onReplay }: Props) {
  const query = useInfiniteQuery({
    ...deadJobsQuery(scopeToSearch(scope).toString(), group),
    refetchInterval: isPaused ? false : POLL_MS,
    refetchOnWindowFocus: !isPaused,
  });
  const pages = query.data?.pages ?? [];
  const jobs = pages.flatMap((p) => p.jobs);
  const at = pages[0]?.at ?? new Date(0).toISOString();
  const label = groupName(group);
  const allOn = jobs.length > 0 && jobs.every((j) => selected.has(j.id));
  const isFailing = query.errorUpdatedAt > query.dataUpdatedAt;
  const th = "px-2 py-1.5 text-left text-xs font-medium text-neutral-500";

  if (!query.data && !isFailing) {
    return (
      <p role="status" className="px-2 py-3 text-sm text-neutral-500">
        Loading jobs…
      </p>
    );
  }
  return (
    <div className="space-y-2">
      {isFailing && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          Could not load this group&apos;s jobs: {query.error?.message}{" "}
          <button type="button" onClick={() => void query.refetch()} className="font-medium underline">
            Try again
          </button>
        </p>
      )}
      {query.data && jobs.length === 0 && <p className="px-2 py-3 text-sm text-neutral-500">No jobs left in this group.</p>}
      {jobs.length > 0 && (
        <table className="w-full table-fixed text-sm" aria-label={`Jobs of ${label}`}>
          <colgroup>
            <col className="w-9" />
            <col className="w-28" />
            <col className="w-24" />
            <col className="w-20" />
            <col className="w-52" />
            <col />
            <col className="w-24" />
          </colgroup>
          <thead>
            <tr className="border-b border-neutral-200">
              <th scope="col" className={th}>
                {onReplay && <input
                  type="checkbox"
                  checked={allOn}
                  onChange={(e) => onToggle(jobs.map((j) => j.id), e.target.checked)}
                  aria-label={`Select all ${jobs.length} shown jobs of ${label}`}
                  className="size-4 accent-neutral-900"
                />}
              </th>
              <th scope="col" className={th}>Job</th>
              <th scope="col" className={th}>Tenant</th>
              <th scope="col" className={th}>Attempts</th>
              <th scope="col" className={th}>Finished</th>
              <th scope="col" className={th}>Last error</th>
              <th scope="col" className={th}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.id} className="border-b border-neutral-100 align-top last:border-0">
                <td className="px-2 py-2">
                  {onReplay && <input
                    type="checkbox"
                    checked={selected.has(j.id)}
                    onChange={(e) => onToggle([j.id], e.target.checked)}
                    aria-label={`Select job ${j.id}`}
                    className="size-4 accent-neutral-900"
                  />}
                </td>
                <td className="px-2 py-2">
                  <Link href={`/jobs/${j.id}`} title={j.id} className="font-mono text-xs text-blue-700 underline-offset-2 hover:underline">
                    {j.id.slice(0, 8)}
                  </Link>
                </td>
                <td className="truncate px-2 py-2 text-xs" title={j.tenantId}>
                  {j.tenantId}
                </td>
                <td className="px-2 py-2 text-xs tabular-nums">
                  {j.attempt} of {j.maxAttempts}
                </td>
                <td className="px-2 py-2 text-xs">
                  <time dateTime={j.finishedAt} className="block">
                    {formatAgo(Date.parse(at) - Date.parse(j.finishedAt))}
                  </time>
                  <span className="block whitespace-nowrap text-neutral-500 tabular-nums">{formatUtcLong(new Date(j.finishedAt))}</span>
                </td>
                <td className="px-2 py-2 text-xs">
                  <span className="font-mono text-red-800">{j.errorClass ?? NO_ERROR}</span>
                  {j.errorMessage && (
                    <p className="line-clamp-2 break-words text-neutral-700" title={j.errorMessage}>
                      {j.errorMessage}
                    </p>
                  )}
                </td>
                <td className="px-2 py-2 text-right">
                  {onReplay && <button
                    type="button"
                    aria-label={`Replay job ${j.id}`}
                    onClick={() => onReplay({ kind: "ids", ids: [j.id] }, `Replay job ${j.id.slice(0, 8)}`)}
                    className="rounded-md border border-neutral-300 bg-white px-2 py-0.5 text-xs font-medium text-neutral-800 shadow-xs hover:bg-neutral-50"
                  >
                    Replay
                  </button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {query.hasNextPage && (
        <button
          type="button"
          disabled={query.isFetchingNextPage}
          onClick={() => void query.fetchNextPage()}
          className="rounded-md px-2 py-1 text-sm font-medium text-neutral-700 hover:bg-neutral-100 disabled:opacity-50"
        >
          {query.isFetchingNextPage ? "Loading…" : "Load more jobs"}
        </button>
      )}
    </div>
  );
}
