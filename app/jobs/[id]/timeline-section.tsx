"use client";

import { useMemo } from "react";
import { TimelineChart } from "@/components/timeline/timeline-chart";
import type { JobDetail } from "@/lib/jobs/queries";
import { PHASES, type Audience, type Explanation } from "@/lib/insight/claims";
import { PHASE_LABELS } from "@/lib/insight/render";
import { buildTimeline } from "@/lib/jobs/timeline";
import { formatDuration } from "@/lib/time-format";
import { Card } from "@/components/charts/card";

/**
 * The timeline, with where the time went as chips: the why-slow panel's own phase totals (one
 * explanation, lib/insight/explain.ts), so the chips and the sentence agree.
 */
export function TimelineSection({
  detail,
  now,
  explanation: report,
  audience,
}: {
  detail: JobDetail;
  now: number;
  explanation: Explanation;
  audience: Audience;
}) {
  const { job, runs, events } = detail;
  const timeline = useMemo(() => buildTimeline(job, runs, events, now), [job, runs, events, now]);
  const attempts = timeline.lanes.filter((l) => l.attempt > 0).length;
  const labels = PHASE_LABELS[audience];
  const tries = audience === "tenant" ? (attempts === 1 ? "try" : "tries") : attempts === 1 ? "attempt" : "attempts";
  return (
    <Card title="Timeline" id="timeline" aside={`${attempts} ${tries} over ${formatDuration(report.totalMs)}${timeline.isOngoing ? " so far" : ""}`}>
      <dl aria-label="Where the time went" className="mb-5 flex flex-wrap gap-2 text-sm">
        {PHASES.map((p) => {
          const ms = report.phases[p];
          if (ms === 0) return null;
          const lost = p === "lost_to_lease";
          return (
            <div
              key={p}
              className={lost ? "rounded-md bg-orange-50 px-3 py-1.5 ring-1 ring-orange-200 ring-inset" : "rounded-md bg-neutral-100 px-3 py-1.5"}
            >
              <dt className={`inline ${lost ? "text-orange-900" : "text-neutral-600"}`}>{capital(labels[p])} </dt>
              <dd className={`inline font-semibold tabular-nums ${lost ? "text-orange-900" : ""}`}>{formatDuration(ms)}</dd>
            </div>
          );
        })}
      </dl>
      <TimelineChart timeline={timeline} caption={`Timeline of job ${job.id}: ${attempts} ${tries}`} tenant={audience === "tenant"} />
    </Card>
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
