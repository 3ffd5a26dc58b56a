"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { StackedBar } from "@/components/charts/stacked-bar";
import { DataTable } from "@/components/data-table";
import type { SlownessContextData } from "@/lib/insight/baseline";
import { analyzeSlowness, PHASE_LABELS, PHASES, type Phase, type SlownessReport } from "@/lib/insight/slowness";
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

/**
 * "Why was this slow": the job's time split into phases (lib/insight/slowness.ts)
 * from the same job, runs and events the page already polls, compared with
 * recent jobs of its type once that comparison arrives.
 */
export function WhySlow({ detail, now }: { detail: JobDetail; now: number }) {
  const { job, runs, events } = detail;
  const context = useQuery(slownessQuery(job.id));
  const report = useMemo(
    () => analyzeSlowness(job, runs, events, { now, aheadAtSubmit: context.data?.aheadAtSubmit ?? null, baselines: context.data?.baselines ?? [] }),
    [job, runs, events, now, context.data],
  );
  const shown = PHASES.filter((p) => report.phases[p] > 0);
  const unusual = new Set(report.unusual.map((u) => u.phase));
  return (
    <Card title="Why was this slow" id="why-slow" aside={`${formatDuration(report.totalMs)}${report.isOngoing ? " so far" : ""} from submit`}>
      <p id="why-slow-summary" className="mb-4 text-sm leading-6 text-neutral-800">
        {report.dominant && (
          <span className="mr-1 inline-block rounded bg-neutral-900 px-1.5 py-0.5 text-xs font-medium text-white">
            {PHASE_LABELS[report.dominant]}
          </span>
        )}
        {report.summary}
      </p>
      <StackedBar
        label={`Where the time went: ${shown.map((p) => `${PHASE_LABELS[p]} ${formatDuration(report.phases[p])}`).join(", ")}`}
        parts={shown.map((p) => ({
          key: p,
          value: report.phases[p],
          color: PHASE_COLORS[p],
          title: `${PHASE_LABELS[p]}: ${formatDuration(report.phases[p])}`,
        }))}
      />
      <ul aria-label="Phases" className="mt-3 flex flex-wrap gap-x-5 gap-y-1.5 text-sm">
        {shown.map((p) => (
          <li key={p} className="flex items-center gap-2">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: PHASE_COLORS[p] }} />
            <span className="text-neutral-600">{PHASE_LABELS[p]}</span>
            <span className="font-semibold tabular-nums">{formatDuration(report.phases[p])}</span>
            <span className="text-xs text-neutral-600 tabular-nums">{share(report.phases[p], report.totalMs)}</span>
            {unusual.has(p) && <span className="rounded bg-orange-100 px-1.5 text-xs font-medium text-orange-900">unusual</span>}
          </li>
        ))}
      </ul>
      <div className="mt-5 grid gap-6 lg:grid-cols-2">
        <Attempts report={report} />
        <Comparison report={report} context={context.data} isLoading={context.isPending} error={context.error?.message} />
      </div>
    </Card>
  );
}

function Attempts({ report }: { report: SlownessReport }) {
  if (report.attempts.length === 0) return <p className="text-sm text-neutral-600">No attempt yet.</p>;
  const right = { align: "right" as const, className: "tabular-nums" };
  return (
    <div>
      <h3 className="mb-2 text-xs font-medium text-neutral-600">Per attempt</h3>
      <DataTable
        caption="Where each attempt's time went"
        rows={report.attempts}
        rowKey={(a) => String(a.attempt)}
        columns={[
          { header: "#", isRowHeader: true, className: "tabular-nums", cell: (a) => a.attempt },
          { header: "Worker", className: "font-mono text-xs", cell: (a) => a.worker ?? "—" },
          { header: "Queued", ...right, cell: (a) => d(a.queueWaitMs) },
          { header: "Ran", ...right, cell: (a) => d(a.runningMs + a.claimedMs) },
          { header: "Lost", align: "right", className: "tabular-nums text-orange-800", cell: (a) => d(a.lostMs) },
          { header: "Backoff", ...right, cell: (a) => d(a.backoffMs) },
          {
            header: "Ended",
            className: "text-xs",
            cell: (a) => (
              <>
                {a.outcome === "open" ? "in progress" : a.outcome?.replace("_", " ")}
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
  context,
  isLoading,
  error,
}: {
  report: SlownessReport;
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
          { header: "Phase", isRowHeader: true, cell: (p) => (p === "total" ? "total" : PHASE_LABELS[p]) },
          {
            header: "This job",
            align: "right",
            className: "tabular-nums",
            cell: (p) => <span className={unusual.has(p) ? "font-semibold text-orange-900" : ""}>{formatDuration(mine(p))}</span>,
          },
          ...usable.map((b) => ({
            header: `p50 / p95${usable.length > 1 ? (b.label.includes("all tenants") ? " (all)" : " (tenant)") : ""}`,
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

const d = (ms: number) => (ms > 0 ? formatDuration(ms) : "—");
function share(part: number, total: number) {
  if (total === 0) return "";
  const p = (part / total) * 100;
  return p < 1 ? "<1%" : `${Math.round(p)}%`;
}
