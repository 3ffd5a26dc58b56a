"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Card } from "@/components/charts/card";
import { StackedBar } from "@/components/charts/stacked-bar";
import { DataTable } from "@/components/data-table";
import { useTimeZone } from "@/components/time-zone";
import { slownessQuery } from "@/lib/client/queries";
import { PHASES, type Audience, type AttemptRow, type Baseline, type Explanation, type Phase } from "@/lib/insight/claims";
import { claimsOf, explain, type ExplainContext, emptyContext } from "@/lib/insight/explain";
import { PHASE_LABELS, render } from "@/lib/insight/render";
import type { JobDetail } from "@/lib/jobs/queries";
import { formatDuration } from "@/lib/time-format";

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

/** The panel's title follows the job's state: why it failed, who cancelled it, how long so far, or why it was slow. */
function titleOf(ex: Explanation, state: JobDetail["job"]["state"]): string {
  if (state === "dead") return "Why it failed";
  if (state === "cancelled" || state === "cancelling") return "Why it was cancelled, and where its time went";
  if (ex.isOngoing) return "How long so far";
  return "Why was this slow";
}

/**
 * The one explanation of the page (lib/insight/explain.ts): the panel's sentence, its chips and the
 * timeline's chips all read it. Built in the browser from the job's record the page polls and the
 * context the server read (its first copy comes with the page, so the first sentence is the final
 * one; a poll refreshes it), at the page's clock, so the time of what is still going on moves on.
 */
export function useExplanation({
  detail,
  now,
  audience,
  initialContext,
  renderedAt,
}: {
  detail: JobDetail;
  now: number;
  audience: Audience;
  initialContext: ExplainContext | null;
  renderedAt: number;
}) {
  const { job, runs, events } = detail;
  // Clock times in the sentences are the viewer's (the zone the server rendered with, too).
  const timeZone = useTimeZone();
  const context = useQuery({
    ...slownessQuery(job.id),
    ...(initialContext ? { initialData: initialContext, initialDataUpdatedAt: renderedAt } : {}),
  });
  const explanation = useMemo(
    () => explain(job, runs, events, { ...(context.data ?? emptyContext(now)), asOf: now }),
    [job, runs, events, now, context.data],
  );
  const words = useMemo(() => render(explanation, job, { audience, timeZone }), [explanation, job, audience, timeZone]);
  return { explanation, words, context };
}

export function WhySlow({
  state,
  explanation: ex,
  words,
  context,
  audience,
}: {
  state: JobDetail["job"]["state"];
  explanation: Explanation;
  words: ReturnType<typeof render>;
  context: ReturnType<typeof useExplanation>["context"];
  audience: Audience;
}) {
  const labels = PHASE_LABELS[audience];
  const shown = PHASES.filter((p) => ex.phases[p] > 0);
  const beyond = new Set<string>(
    claimsOf(ex.claims, "compare")
      .filter((c) => c.above)
      .map((c) => c.metric),
  );
  return (
    <Card title={titleOf(ex, state)} id="why-slow" aside={`${formatDuration(ex.totalMs)}${ex.isOngoing ? " so far" : ""} from submit`}>
      <p id="why-slow-summary" className="mb-2 text-sm leading-6 text-neutral-800" data-cause={ex.cause}>
        <span className="mr-1 inline-block rounded bg-neutral-900 px-1.5 py-0.5 text-xs font-medium text-white">{words.chip}</span>
        {words.summary}
      </p>
      {words.next && (
        <p id="why-slow-next" className="mb-4 rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-950">
          <span className="font-medium">What next: </span>
          {words.next}
        </p>
      )}
      <StackedBar
        label={`Where the time went: ${shown.map((p) => `${labels[p]} ${formatDuration(ex.phases[p])}`).join(", ")}`}
        parts={shown.map((p) => ({ key: p, value: ex.phases[p], color: PHASE_COLORS[p], title: `${labels[p]}: ${formatDuration(ex.phases[p])}` }))}
      />
      <ul aria-label="Phases" className="mt-3 flex flex-wrap gap-x-5 gap-y-1.5 text-sm">
        {shown.map((p) => (
          <li key={p} className="flex items-center gap-2">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: PHASE_COLORS[p] }} />
            <span className="text-neutral-600">{labels[p]}</span>
            <span className="font-semibold tabular-nums">{formatDuration(ex.phases[p])}</span>
            <span className="text-xs text-neutral-600 tabular-nums">{share(ex.phases[p], ex.totalMs)}</span>
          </li>
        ))}
      </ul>
      <div className="mt-5 grid gap-6 lg:grid-cols-2">
        <Attempts ex={ex} audience={audience} />
        <Comparison
          ex={ex}
          audience={audience}
          baselines={context.data?.baselines}
          isLoading={context.isPending}
          error={context.error?.message}
          beyond={beyond}
        />
      </div>
    </Card>
  );
}

function Attempts({ ex, audience }: { ex: Explanation; audience: Audience }) {
  const tenant = audience === "tenant";
  if (ex.attempts.length === 0) return <p className="text-sm text-neutral-600">{tenant ? "No try yet." : "No attempt yet."}</p>;
  const refunded = new Set(
    claimsOf(ex.claims, "lost_attempt")
      .filter((l) => l.refunded)
      .map((l) => l.attempt),
  );
  const right = { align: "right" as const, className: "tabular-nums" };
  // Claimed and not started yet, and paused: a column each only where some attempt spent a second or
  // more so (a worker that claimed ahead of its free slots, an operator's pause); under that, the
  // phase bar shows it.
  const notStarted = ex.attempts.some((a) => a.claimedMs >= 1_000);
  const paused = ex.attempts.some((a) => a.pausedMs >= 1_000);
  return (
    // With a column more, the table takes the panel's width, the comparison below it.
    <div className={notStarted || paused ? "min-w-0 lg:col-span-2" : "min-w-0"}>
      <h3 className="mb-2 text-xs font-medium text-neutral-600">{tenant ? "Per try" : "Per attempt"}</h3>
      <DataTable
        caption={tenant ? "Where each try's time went" : "Where each attempt's time went"}
        rows={ex.attempts}
        rowKey={(a) => String(a.attempt)}
        columns={[
          { header: "#", isRowHeader: true, className: "tabular-nums", cell: (a) => a.attempt },
          // A tenant is not shown worker ids.
          ...(tenant ? [] : [{ header: "Worker", className: "font-mono text-xs", cell: (a: AttemptRow) => a.worker ?? "—" }]),
          { header: "Queued", ...right, cell: (a) => d(a.queueWaitMs) },
          ...(notStarted ? [{ header: "Not started", ...right, cell: (a: AttemptRow) => d(a.claimedMs) }] : []),
          { header: "Ran", ...right, cell: (a) => d(a.runningMs) },
          ...(paused ? [{ header: "Paused", ...right, cell: (a: AttemptRow) => d(a.pausedMs) }] : []),
          { header: tenant ? "Interrupted" : "Lost", align: "right", className: "tabular-nums text-orange-800", cell: (a) => d(a.lostMs) },
          { header: "Backoff", ...right, cell: (a) => d(a.backoffMs) },
          {
            header: "Status",
            className: "text-xs",
            cell: (a) => (
              <>
                {statusWords(a, tenant, refunded.has(a.attempt))}
                {a.errorClass && a.outcome === "failed" && <span className="ml-1 font-mono text-neutral-600">{a.errorClass}</span>}
              </>
            ),
          },
        ]}
      />
    </div>
  );
}

/** What an attempt is or was, in the reader's words: not yet claimed, running, paused, or how it ended. */
function statusWords(a: AttemptRow, tenant: boolean, refunded: boolean): string {
  switch (a.status) {
    case "waiting":
      return tenant ? "not started yet" : "not yet claimed";
    case "claimed":
      return tenant ? "starting" : "claimed, not started";
    case "running":
      return "running";
    case "paused":
      return "paused";
    case "cancelling":
      return "being cancelled";
    case "ended":
      break;
  }
  switch (a.outcome) {
    case "lease_expired": {
      const what = tenant ? (a.neverStarted ? "never began" : "interrupted") : a.neverStarted ? "claimed, never started" : "lost with its worker";
      return refunded ? `${what} (not counted)` : what;
    }
    case "released":
      return tenant ? "handed back, not counted" : "released, refunded";
    case null:
      return "—";
    default:
      return a.outcome.replace("_", " ");
  }
}

function Comparison({
  ex,
  audience,
  baselines,
  isLoading,
  error,
  beyond,
}: {
  ex: Explanation;
  audience: Audience;
  baselines: Baseline[] | undefined;
  isLoading: boolean;
  error?: string;
  beyond: Set<string>;
}) {
  if (error) return <p className="text-sm text-red-700">Could not compare with other jobs: {error}</p>;
  if (isLoading || !baselines) return <p className="text-sm text-neutral-600">Comparing with earlier jobs of its type…</p>;
  const usable = baselines.filter((b) => b.n > 0);
  if (usable.length === 0)
    return <p className="text-sm text-neutral-600">No job of its type succeeded in the 7 days before it was submitted: nothing to compare with.</p>;
  const tenant = audience === "tenant";
  const compared = new Map(claimsOf(ex.claims, "compare").map((c) => [c.metric, c.value]));
  const metrics = (["total", "run", "wait"] as const).filter((m) => usable.some((b) => b[m]));
  const names = { total: "submit to done", run: "its run", wait: "first wait" } as const;
  return (
    <div>
      <h3 className="mb-2 text-xs font-medium text-neutral-600">
        Against jobs of its type that succeeded in the 7 days before it was submitted (
        {usable.map((b) => `${b.scope.tenantId ? (tenant ? "yours" : b.scope.tenantId) : "every tenant"}: ${b.n}`).join("; ")})
      </h3>
      <DataTable
        caption="This job against jobs of its type that succeeded before it was submitted"
        rows={metrics}
        rowKey={(m) => m}
        rowClassName={(m) => (beyond.has(m) ? "bg-orange-50" : undefined)}
        columns={[
          { header: "Measure", hideHeader: true, isRowHeader: true, cell: (m) => names[m] },
          {
            header: "This job",
            align: "right",
            className: "tabular-nums",
            cell: (m) => (
              <span className={beyond.has(m) ? "font-semibold text-orange-900" : ""}>{compared.has(m) ? formatDuration(compared.get(m)!) : "—"}</span>
            ),
          },
          ...usable.map((b) => ({
            header: `${tenant ? "usual / 95 of 100 within" : "p50 / p95"}${usable.length > 1 ? (b.scope.tenantId ? " (tenant)" : " (all)") : ""}`,
            align: "right" as const,
            className: "tabular-nums text-neutral-700",
            cell: (m: "total" | "run" | "wait") => {
              const q = b[m];
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
