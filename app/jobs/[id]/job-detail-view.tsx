"use client";

import { useQuery } from "@tanstack/react-query";
import { Breadcrumb } from "@/components/breadcrumb";
import { Freshness, PauseButton } from "@/components/freshness";
import { JsonViewer } from "@/components/json-viewer";
import { isFailingOf, useLive } from "@/components/page-header";
import { useNow } from "@/components/use-now";
import { HttpError } from "@/lib/client/get-json";
import { jobDetailQuery } from "@/lib/client/queries";
import type { ActorKind } from "@/lib/fsm/table";
import type { Audience } from "@/lib/insight/claims";
import type { ExplainContext } from "@/lib/insight/explain";
import type { JobDetail } from "@/lib/jobs/queries";
import { EventLog, Rejections } from "./event-log";
import { ParamsCard } from "./params-card";
import { JobActions } from "./job-actions";
import { JobHeader } from "./job-header";
import { RunRecords } from "./run-records";
import { Card } from "@/components/charts/card";
import { TimelineSection } from "./timeline-section";
import { useExplanation, WhySlow } from "./why-slow";

const POLL_MS = 2_000;

type Props = {
  id: string;
  initial: JobDetail;
  renderedAt: number;
  actorKind: ActorKind | null;
  /** Staff see the machinery's terms in "why was this slow"; a tenant member sees none of them. */
  audience: Audience;
  /** The comparison read with the page, so "why was this slow" paints its final sentence first. */
  initialContext: ExplainContext | null;
};

export function JobDetailView({ id, initial, renderedAt, actorKind, audience, initialContext }: Props) {
  const live = useLive(POLL_MS);
  const query = useQuery({
    ...jobDetailQuery(id),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    ...live.poll,
  });
  const now = useNow({ serverNow: renderedAt });
  const detail = query.data;
  const { job } = detail;
  const isFailing = isFailingOf(query);
  const isGone = isFailing && query.error instanceof HttpError && query.error.isNotFound;
  const result = detail.runs.find((r) => r.outcome === "succeeded")?.result;
  // One explanation for the why-slow panel and the timeline's chips: the same phase totals everywhere.
  const why = useExplanation({ detail, now, audience, initialContext, renderedAt });

  return (
    <div className="space-y-6">
      <Breadcrumb href="/jobs" label="Jobs">
        <span className="font-mono text-neutral-700">{job.id}</span>
      </Breadcrumb>

      <JobHeader
        job={job}
        progress={detail.progress}
        typeHistoryHref={audience === "staff" ? `/types/${encodeURIComponent(job.type)}` : undefined}
        now={now}
        tenant={audience === "tenant"}
        status={
          <div className="flex flex-wrap items-center gap-3">
            <Freshness updatedAt={query.dataUpdatedAt} serverNow={renderedAt} isPaused={live.isPaused} isFailing={isFailing} pollMs={live.pollMs} />
            <PauseButton isPaused={live.isPaused} onToggle={live.toggle} />
          </div>
        }
      >
        {actorKind && <JobActions job={job} actorKind={actorKind} />}
      </JobHeader>

      {isFailing && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm">
          <p className="font-medium text-red-900">
            {isGone ? "This job no longer exists." : "Could not refresh the job; showing what was last received."}
          </p>
          {!isGone && <p className="mt-1 text-red-800">{query.error?.message}</p>}
        </div>
      )}

      <WhySlow state={job.state} explanation={why.explanation} words={why.words} context={why.context} audience={audience} />
      <TimelineSection detail={detail} now={now} explanation={why.explanation} audience={audience} />

      <div className="grid gap-6 lg:grid-cols-2">
        <ParamsCard params={job.params} events={detail.events} />
        <Card title="Result" id="result">
          {result === undefined || result === null ? (
            <p className="text-sm text-neutral-600">
              {job.state === "succeeded" ? "The job succeeded without a result." : "No result yet: no attempt has succeeded."}
            </p>
          ) : (
            <JsonViewer value={result} label="Result" />
          )}
        </Card>
      </div>

      <RunRecords runs={detail.runs} maxAttempts={job.maxAttempts} now={now} tenant={audience === "tenant"} />
      <EventLog events={detail.events} eventCount={detail.eventCount} now={now} audience={audience} />
      {/* The machinery's refusals are staff's. */}
      {audience === "staff" && <Rejections rejections={detail.rejections} now={now} />}
    </div>
  );
}
