"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { StackedBar } from "@/components/charts/stacked-bar";
import type { SlownessContextData } from "@/lib/insight/baseline";
import { analyzeSlowness, PHASE_LABELS, PHASES, type Phase, type SlownessReport } from "@/lib/insight/slowness";
import { slownessQuery } from "@/lib/client/queries";
import type { JobDetail } from "@/lib/jobs/queries";
import { formatDuration } from "@/lib/jobs/timeline";
import { Section } from "./section";

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
    <Section title="Why was this slow" id="why-slow" aside={`${formatDuration(report.totalMs)}${report.isOngoing ? " so far" : ""} from submit`}>
      <p id="why-slow-summary" className="mb-4 text-sm leading-6 text-neutral-800">
        {report.dominant && <span className="mr-1 inline-block rounded bg-neutral-900 px-1.5 py-0.5 text-xs font-medium text-white">{PHASE_LABELS[report.dominant]}</span>}
        {report.summary}
      </p>
      <StackedBar
        label={`Where the time went: ${shown.map((p) => `${PHASE_LABELS[p]} ${formatDuration(report.phases[p])}`).join(", ")}`}
        parts={shown.map((p) => ({ key: p, value: report.phases[p], color: PHASE_COLORS[p], title: `${PHASE_LABELS[p]}: ${formatDuration(report.phases[p])}` }))}
      />
      <ul aria-label="Phases" className="mt-3 flex flex-wrap gap-x-5 gap-y-1.5 text-sm">
        {shown.map((p) => (
          <li key={p} className="flex items-center gap-2">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: PHASE_COLORS[p] }} />
            <span className="text-neutral-600">{PHASE_LABELS[p]}</span>
            <span className="font-semibold tabular-nums">{formatDuration(report.phases[p])}</span>
            <span className="text-xs text-neutral-500 tabular-nums">{share(report.phases[p], report.totalMs)}</span>
            {unusual.has(p) && <span className="rounded bg-orange-100 px-1.5 text-xs font-medium text-orange-900">unusual</span>}
          </li>
        ))}
      </ul>
      <div className="mt-5 grid gap-6 lg:grid-cols-2">
        <Attempts report={report} />
        <Comparison report={report} context={context.data} isLoading={context.isPending} error={context.error?.message} />
      </div>
    </Section>
  );
}

function Attempts({ report }: { report: SlownessReport }) {
  if (report.attempts.length === 0) return <p className="text-sm text-neutral-500">No attempt yet.</p>;
  return (
    <table className="w-full text-sm">
      <caption className="mb-2 text-left text-xs font-medium text-neutral-500">Per attempt</caption>
      <thead className="text-left text-xs text-neutral-500">
        <tr>
          <th className="pb-1 font-medium">#</th>
          <th className="pb-1 font-medium">Worker</th>
          <th className="pb-1 text-right font-medium">Queued</th>
          <th className="pb-1 text-right font-medium">Ran</th>
          <th className="pb-1 text-right font-medium">Lost</th>
          <th className="pb-1 text-right font-medium">Backoff</th>
          <th className="pb-1 pl-3 font-medium">Ended</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-neutral-100 tabular-nums">
        {report.attempts.map((a) => (
          <tr key={a.attempt}>
            <td className="py-1">{a.attempt}</td>
            <td className="py-1 font-mono text-xs">{a.worker ?? "—"}</td>
            <td className="py-1 text-right">{d(a.queueWaitMs)}</td>
            <td className="py-1 text-right">{d(a.runningMs + a.claimedMs)}</td>
            <td className="py-1 text-right text-orange-800">{d(a.lostMs)}</td>
            <td className="py-1 text-right">{d(a.backoffMs)}</td>
            <td className="py-1 pl-3 text-xs">
              {a.outcome === "open" ? "in progress" : a.outcome?.replace("_", " ")}
              {a.errorClass && a.outcome !== "lease_expired" && <span className="ml-1 font-mono text-neutral-500">{a.errorClass}</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Comparison({ report, context, isLoading, error }: { report: SlownessReport; context: SlownessContextData | undefined; isLoading: boolean; error?: string }) {
  if (error) return <p className="text-sm text-red-700">Could not compare with other jobs: {error}</p>;
  if (isLoading || !context) return <p className="text-sm text-neutral-500">Comparing with recent jobs of its type…</p>;
  const usable = context.baselines.filter((b) => b.n > 0);
  if (usable.length === 0) return <p className="text-sm text-neutral-500">No finished jobs of its type in the last 7 days to compare with.</p>;
  const rows = (["total", ...PHASES] as const).filter((p) => (p === "total" ? true : report.phases[p] > 0 || usable.some((b) => (b.phases[p]?.p95 ?? 0) > 0)));
  const mine = (p: Phase | "total") => (p === "total" ? report.totalMs : report.phases[p]);
  return (
    <table className="w-full text-sm">
      <caption className="mb-2 text-left text-xs font-medium text-neutral-500">
        Against recent finished jobs ({usable.map((b) => `${b.label}: ${b.n}`).join("; ")})
      </caption>
      <thead className="text-left text-xs text-neutral-500">
        <tr>
          <th className="pb-1 font-medium">Phase</th>
          <th className="pb-1 text-right font-medium">This job</th>
          {usable.map((b) => (
            <th key={b.label} className="pb-1 text-right font-medium" title={b.label}>
              p50 / p95 {usable.length > 1 ? (b.label.includes("all tenants") ? "(all)" : "(tenant)") : ""}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-neutral-100 tabular-nums">
        {rows.map((p) => {
          const isUnusual = report.unusual.some((u) => u.phase === p);
          return (
            <tr key={p} className={isUnusual ? "bg-orange-50" : undefined}>
              <td className="py-1">{p === "total" ? "total" : PHASE_LABELS[p]}</td>
              <td className={`py-1 text-right ${isUnusual ? "font-semibold text-orange-900" : ""}`}>{formatDuration(mine(p))}</td>
              {usable.map((b) => (
                <td key={b.label} className="py-1 text-right text-neutral-600">
                  {b.phases[p] ? `${formatDuration(b.phases[p].p50)} / ${formatDuration(b.phases[p].p95)}` : "—"}
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const d = (ms: number) => (ms > 0 ? formatDuration(ms) : "—");
function share(part: number, total: number) {
  if (total === 0) return "";
  const p = (part / total) * 100;
  return p < 1 ? "<1%" : `${Math.round(p)}%`;
}
