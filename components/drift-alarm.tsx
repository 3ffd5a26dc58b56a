"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { LocalTime } from "@/components/time-zone";
import { HttpError } from "@/lib/client/get-json";
import { driftQuery } from "@/lib/client/queries";
import { numbers } from "./numbers";
import { shortId } from "@/lib/jobs/short-id";

const POLL_MS = 15_000;

/**
 * On every page: drift means something wrote the jobs table outside the write
 * path, an invariant violation. Polls a cheap endpoint (one index range);
 * shows nothing while all is well. The layout renders it only for people who
 * may read insight, so a tenant's pages never call the staff-only endpoint.
 */
export function DriftAlarm() {
  const query = useQuery({
    ...driftQuery(),
    // A session that ended (or a role changed) stops the polling instead of failing every 15 s.
    refetchInterval: (q) => (q.state.error instanceof HttpError && q.state.error.isRefused ? false : POLL_MS),
    retry: false,
  });
  const d = query.data;
  if (!d || d.count === 0) return null;
  return (
    <div role="alert" aria-label="Drift alarm" className="border-b border-red-300 bg-red-600 text-white">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-2 text-sm sm:px-6">
        <span className="font-semibold">
          Drift: {numbers.format(d.count)}
          {d.capped ? "+" : ""} {d.count === 1 ? "transition was" : "transitions were"} refused because the jobs table was written outside the write
          path.
        </span>
        {d.latest && (
          <span className="text-red-100">
            Latest on job{" "}
            <Link href={`/jobs/${d.latest.jobId}`} className="font-mono underline">
              {shortId(d.latest.jobId)}
            </Link>{" "}
            at <LocalTime at={new Date(d.latest.at)} />.
          </span>
        )}
        <Link href="/rejections?kind=drift" className="ml-auto rounded bg-white/15 px-2 py-0.5 font-medium hover:bg-white/25">
          See drift rejections →
        </Link>
      </div>
    </div>
  );
}
