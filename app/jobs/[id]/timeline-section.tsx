"use client";

import { useMemo } from "react";
import { TimelineChart } from "@/components/timeline/timeline-chart";
import type { JobDetail } from "@/lib/jobs/queries";
import { buildTimeline, formatDuration, summarizeTimeline, type SegmentKind } from "@/lib/jobs/timeline";
import { Card } from "@/components/charts/card";

/** "Why was this slow": where the time went, in the order a job lives it. */
const SPENT: { label: string; kinds: SegmentKind[] }[] = [
  { label: "Waiting in the queue", kinds: ["queue_wait"] },
  { label: "Claimed, not started", kinds: ["claimed"] },
  { label: "Running", kinds: ["running", "cancelling"] },
  { label: "Paused", kinds: ["paused"] },
  { label: "Backing off", kinds: ["retry_wait"] },
  { label: "Dead until replayed", kinds: ["dead"] },
];

export function TimelineSection({ detail, now }: { detail: JobDetail; now: number }) {
  const { job, runs, events } = detail;
  const timeline = useMemo(() => buildTimeline(job, runs, events, now), [job, runs, events, now]);
  const spent = summarizeTimeline(timeline);
  const attempts = timeline.lanes.filter((l) => l.attempt > 0).length;
  return (
    <Card
      title="Timeline"
      id="timeline"
      aside={`${attempts} ${attempts === 1 ? "attempt" : "attempts"} over ${formatDuration(spent.totalMs)}${timeline.isOngoing ? " so far" : ""}`}
    >
      <dl aria-label="Where the time went" className="mb-5 flex flex-wrap gap-2 text-sm">
        {SPENT.map(({ label, kinds }) => {
          const ms = kinds.reduce((sum, k) => sum + spent.byKind[k], 0);
          if (ms === 0) return null;
          return (
            <div key={label} className="rounded-md bg-neutral-100 px-3 py-1.5">
              <dt className="inline text-neutral-600">{label} </dt>
              <dd className="inline font-semibold tabular-nums">{formatDuration(ms)}</dd>
            </div>
          );
        })}
        {spent.lostToExpiredLeasesMs > 0 && (
          <div className="rounded-md bg-orange-50 px-3 py-1.5 ring-1 ring-orange-200 ring-inset">
            <dt className="inline text-orange-900">Lost to expired leases </dt>
            <dd className="inline font-semibold text-orange-900 tabular-nums">{formatDuration(spent.lostToExpiredLeasesMs)}</dd>
          </div>
        )}
      </dl>
      <TimelineChart timeline={timeline} caption={`Timeline of job ${job.id}: ${attempts} attempts`} />
    </Card>
  );
}
