"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { StackedBar } from "@/components/charts/stacked-bar";
import { DataTable } from "@/components/data-table";
import { useTimeZone } from "@/components/time-zone";
import type { SlownessContextData } from "@/lib/insight/baseline";
import { analyzeSlowness, phaseLabels, PHASES, type Audience, type CauseKind, type Phase, type SlownessReport } from "@/lib/insight/slowness";
import { slownessQuery } from "@/lib/client/queries";
import type { JobDetail } from "@/lib/jobs/queries";
import { formatDuration } from "@/lib/jobs/timeline";
import { Card } from "@/components/charts/card";

export const PHASE_COLORS: Record<Phase, string> = {
  scheduled: "#a3a3a3",
  queue_wait: "#0284c7",
  claimed: "#818cf8",
  running: "#7c3aed",
  paused: "#f59e0b",
  retry_backoff: "#eab308",
  lost_to_lease: "#ea580c",
  dead: "#dc2626",
};

/** The chip before the sentence: the cause it names, in the reader's words. */
const CAUSE_CHIPS: Record<CauseKind, { staff: string; tenant: string }> = {
  none: { staff: "just submitted", tenant: "just submitted" },
  nothing_unusual: { staff: "nothing unusual", tenant: "nothing unusual" },
  lost_attempt: { staff: "lost to a silent worker", tenant: "interrupted try" },
  never_started: { staff: "claim never started", tenant: "try never began" },
  slow_run: { staff: "slow run", tenant: "the work took longer" },
  running: { staff: "running", tenant: "the work itself" },
  queue_paused: { staff: "queue paused", tenant: "processing paused" },
  no_worker: { staff: "no worker serving the queue", tenant: "no capacity" },
  jobs_ahead: { staff: "jobs ahead", tenant: "jobs ahead" },
  queue_wait: { staff: "waiting in the queue", tenant: "waiting its turn" },
  retry_backoff: { staff: "retry backoff", tenant: "waiting to retry" },
  scheduled: { staff: "scheduled delay", tenant: "scheduled start" },
  paused: { staff: "paused", tenant: "paused" },
  dead: { staff: "dead until replayed", tenant: "stopped until restarted" },
  claimed: { staff: "slow to start", tenant: "slow to start" },
};

/** The panel's title follows the job's state: why it failed, who cancelled it, how long so far, or why it was slow. */
function titleOf(report: SlownessReport, state: JobDetail["job"]["state"]): string {
  if (state === "dead") return "Why it failed";
  if (state === "cancelled" || state === "cancelling") return "Why it was cancelled, and where its time went";
  if (report.isOngoing) return "How long so far";
  return "Why was this slow";
}

/**
 * "Why was this slow": the job's time split into phases (lib/insight/slowness.ts)
 * from the same job, runs and events the page already polls, and its comparison
 * with recent jobs of its type. The comparison comes with the page (read on the
 * server), so the first paint's sentence is the one that stays; a poll refreshes it.
 * One report feeds the sentence, the chips and the "unusual" tags.
 */
/**
 * The one report of the page: the panel's sentence, its chips and tags, and the timeline's chips all
 * read it. The comparison comes with the page (read on the server) as the query's initial data.
 */
export function useSlowness({
  detail,
  now,
  audience,
  initialContext,
  renderedAt,
}: {
  detail: JobDetail;
  now: number;
  audience: Audience;
  initialContext: SlownessContextData | null;
  renderedAt: number;
}) {
  const { job, runs, events } = detail;
  // Clock times in the sentences are the viewer's (the zone the server rendered with, too).
  const timeZone = useTimeZone();
  const context = useQuery({
    ...slownessQuery(job.id),
    ...(initialContext ? { initialData: initialContext, initialDataUpdatedAt: renderedAt } : {}),
  });
  const report = useMemo(
    () => analyzeSlowness(job, runs, events, { now, audience, timeZone, ...(context.data ?? {}) }),
    [job, runs, events, now, audience, timeZone, context.data],
  );
  return { report, context };
}

export function WhySlow({
  state,
  report,
  context,
  audience,
}: {
  state: JobDetail["job"]["state"];
  report: SlownessReport;
  context: ReturnType<typeof useSlowness>["context"];
  audience: Audience;
}) {
  const labels = phaseLabels(audience);
  const shown = PHASES.filter((p) => report.phases[p] > 0);
  const unusual = new Set(report.unusual.map((u) => u.phase));
  return (
    <Card title={titleOf(report, state)} id="why-slow" aside={`${formatDuration(report.totalMs)}${report.isOngoing ? " so far" : ""} from submit`}>
      <p id="why-slow-summary" className="mb-2 text-sm leading-6 text-neutral-800" data-cause={report.cause.kind}>
        <span className="mr-1 inline-block rounded bg-neutral-900 px-1.5 py-0.5 text-xs font-medium text-white">
          {CAUSE_CHIPS[report.cause.kind][audience]}
        </span>
        {report.summary}
      </p>
      {report.next && (
        <p id="why-slow-next" className="mb-4 rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-950">
          <span className="font-medium">What next: </span>
          {report.next}
        </p>
      )}
      <StackedBar
        label={`Where the time went: ${shown.map((p) => `${labels[p]} ${formatDuration(report.phases[p])}`).join(", ")}`}
        parts={shown.map((p) => ({
          key: p,
          value: report.phases[p],
          color: PHASE_COLORS[p],
          title: `${labels[p]}: ${formatDuration(report.phases[p])}`,
        }))}
      />
      <ul aria-label="Phases" className="mt-3 flex flex-wrap gap-x-5 gap-y-1.5 text-sm">
        {shown.map((p) => (
          <li key={p} className="flex items-center gap-2">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: PHASE_COLORS[p] }} />
            <span className="text-neutral-600">{labels[p]}</span>
            <span className="font-semibold tabular-nums">{formatDuration(report.phases[p])}</span>
            <span className="text-xs text-neutral-600 tabular-nums">{share(report.phases[p], report.totalMs)}</span>
            {unusual.has(p) && <span className="rounded bg-orange-100 px-1.5 text-xs font-medium text-orange-900">unusual</span>}
          </li>
        ))}
      </ul>
      <div className="mt-5 grid gap-6 lg:grid-cols-2">
        <Attempts report={report} audience={audience} />
        <Comparison report={report} audience={audience} context={context.data} isLoading={context.isPending} error={context.error?.message} />
      </div>
    </Card>
  );
}

function Attempts({ report, audience }: { report: SlownessReport; audience: Audience }) {
  const tenant = audience === "tenant";
  if (report.attempts.length === 0) return <p className="text-sm text-neutral-600">{tenant ? "No try yet." : "No attempt yet."}</p>;
  const right = { align: "right" as const, className: "tabular-nums" };
  return (
    <div>
      <h3 className="mb-2 text-xs font-medium text-neutral-600">{tenant ? "Per try" : "Per attempt"}</h3>
      <DataTable
        caption={tenant ? "Where each try's time went" : "Where each attempt's time went"}
        rows={report.attempts}
        rowKey={(a) => String(a.attempt)}
        columns={[
          { header: "#", isRowHeader: true, className: "tabular-nums", cell: (a) => a.attempt },
          // A tenant is not shown worker ids.
          ...(tenant ? [] : [{ header: "Worker", className: "font-mono text-xs", cell: (a: SlownessReport["attempts"][number]) => a.worker ?? "—" }]),
          { header: "Queued", ...right, cell: (a) => d(a.queueWaitMs) },
          { header: "Ran", ...right, cell: (a) => d(a.runningMs + a.claimedMs) },
          { header: tenant ? "Interrupted" : "Lost", align: "right", className: "tabular-nums text-orange-800", cell: (a) => d(a.lostMs) },
          { header: "Backoff", ...right, cell: (a) => d(a.backoffMs) },
          {
            header: "Ended",
            className: "text-xs",
            cell: (a) => (
              <>
                {outcomeWords(a, tenant)}
                {a.errorClass && a.outcome !== "lease_expired" && <span className="ml-1 font-mono text-neutral-600">{a.errorClass}</span>}
              </>
            ),
          },
        ]}
      />
    </div>
  );
}

function Comparison({
  report,
  audience,
  context,
  isLoading,
  error,
}: {
  report: SlownessReport;
  audience: Audience;
  context: SlownessContextData | undefined;
  isLoading: boolean;
  error?: string;
}) {
  if (error) return <p className="text-sm text-red-700">Could not compare with other jobs: {error}</p>;
  if (isLoading || !context) return <p className="text-sm text-neutral-600">Comparing with recent jobs of its type…</p>;
  const usable = context.baselines.filter((b) => b.n > 0);
  if (usable.length === 0) return <p className="text-sm text-neutral-600">No finished jobs of its type in the last 7 days to compare with.</p>;
  const rows = (["total", ...PHASES] as const).filter((p) =>
    p === "total" ? true : report.phases[p] > 0 || usable.some((b) => (b.phases[p]?.p95 ?? 0) > 0),
  );
  const mine = (p: Phase | "total") => (p === "total" ? report.totalMs : report.phases[p]);
  const unusual = new Set<string>(report.unusual.map((u) => u.phase));
  const labels = phaseLabels(audience);
  const tenant = audience === "tenant";
  return (
    <div>
      <h3 className="mb-2 text-xs font-medium text-neutral-600">
        Against recent finished jobs ({usable.map((b) => `${b.label}: ${b.n}`).join("; ")})
      </h3>
      <DataTable
        caption="This job's phases against recent finished jobs of its type"
        rows={rows}
        rowKey={(p) => p}
        rowClassName={(p) => (unusual.has(p) ? "bg-orange-50" : undefined)}
        columns={[
          { header: "Phase", isRowHeader: true, cell: (p) => (p === "total" ? "total" : labels[p]) },
          {
            header: "This job",
            align: "right",
            className: "tabular-nums",
            cell: (p) => <span className={unusual.has(p) ? "font-semibold text-orange-900" : ""}>{formatDuration(mine(p))}</span>,
          },
          ...usable.map((b) => ({
            header: `${tenant ? "usual / 95 of 100 within" : "p50 / p95"}${usable.length > 1 ? (b.label.includes("all tenants") ? " (all)" : " (tenant)") : ""}`,
            align: "right" as const,
            className: "tabular-nums text-neutral-700",
            cell: (p: Phase | "total") => {
              const q = b.phases[p];
              return q ? `${formatDuration(q.p50)} / ${formatDuration(q.p95)}` : "—";
            },
          })),
        ]}
      />
    </div>
  );
}

function outcomeWords(a: SlownessReport["attempts"][number], tenant: boolean): string {
  if (a.outcome === "open") return "in progress";
  if (!tenant) return a.neverStarted ? "claimed, never started" : (a.outcome?.replace("_", " ") ?? "");
  switch (a.outcome) {
    case "lease_expired":
      return a.neverStarted ? "never began" : "interrupted";
    case "succeeded":
      return "succeeded";
    case "failed":
      return "failed";
    case "cancelled":
      return "cancelled";
    default:
      return a.outcome ?? "";
  }
}

const d = (ms: number) => (ms > 0 ? formatDuration(ms) : "—");
function share(part: number, total: number) {
  if (total === 0) return "";
  const p = (part / total) * 100;
  return p < 1 ? "<1%" : `${Math.round(p)}%`;
}
