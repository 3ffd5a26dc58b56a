"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { AgoOverTime, JobLink } from "@/components/cells";
import { actionsColumn, DataTable } from "@/components/data-table";
import { deadJobsQuery } from "@/lib/client/queries";
import type { DeadGroupDto, DeadJobDto } from "@/lib/client/wire";
import { groupName, NO_ERROR, SMALL_BUTTON } from "./groups";
import type { GroupListProps } from "./groups";
import { scopeToSearch } from "./scope";
import { shortId } from "@/lib/jobs/short-id";

const POLL_MS = 5_000;

type Props = GroupListProps & { group: DeadGroupDto };

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

  if (!query.data && !isFailing) {
    return (
      <p role="status" className="px-2 py-3 text-sm text-neutral-600">
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
      {query.data && jobs.length === 0 && <p className="px-2 py-3 text-sm text-neutral-600">No jobs left in this group.</p>}
      {jobs.length > 0 && (
        <DataTable
          caption={`Jobs of ${label}`}
          rows={jobs}
          rowKey={(j) => j.id}
          columns={[
            ...(onReplay
              ? [
                  {
                    header: "Select",
                    hideHeader: true,
                    className: "w-9",
                    headerCell: (
                      <input
                        type="checkbox"
                        checked={allOn}
                        onChange={(e) =>
                          onToggle(
                            jobs.map((j) => j.id),
                            e.target.checked,
                          )
                        }
                        aria-label={`Select all ${jobs.length} shown jobs of ${label}`}
                        className="size-4 accent-neutral-900"
                      />
                    ),
                    cell: (j: DeadJobDto) => (
                      <input
                        type="checkbox"
                        checked={selected.has(j.id)}
                        onChange={(e) => onToggle([j.id], e.target.checked)}
                        aria-label={`Select job ${j.id}`}
                        className="size-4 accent-neutral-900"
                      />
                    ),
                  },
                ]
              : []),
            { header: "Job", cell: (j) => <JobLink id={j.id} /> },
            { header: "Tenant", className: "max-w-24 truncate text-xs", cell: (j) => j.tenantId },
            { header: "Attempts", className: "text-xs tabular-nums", cell: (j) => `${j.attempt} of ${j.maxAttempts}` },
            {
              header: "Finished",
              className: "text-xs",
              cell: (j) => <AgoOverTime at={j.finishedAt} now={at} />,
            },
            {
              header: "Last error",
              className: "text-xs",
              cell: (j) => (
                <>
                  <span className="font-mono text-red-800">{j.errorClass ?? NO_ERROR}</span>
                  {j.errorMessage && (
                    <p className="line-clamp-2 break-words text-neutral-700" title={j.errorMessage}>
                      {j.errorMessage}
                    </p>
                  )}
                </>
              ),
            },
            ...(onReplay
              ? [
                  actionsColumn((j: DeadJobDto) => (
                    <button
                      type="button"
                      aria-label={`Replay job ${j.id}`}
                      onClick={() => onReplay({ kind: "ids", ids: [j.id] }, `Replay job ${shortId(j.id)}`)}
                      className={SMALL_BUTTON}
                    >
                      Replay
                    </button>
                  )),
                ]
              : []),
          ]}
        />
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
