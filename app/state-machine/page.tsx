import type { Metadata } from "next";
import Link from "next/link";
import { Card } from "@/components/charts/card";
import { DataTable } from "@/components/data-table";
import { numbers } from "@/components/numbers";
import { StateBadge } from "@/components/state-badge";
import { requirePage, withViewerRead } from "@/lib/auth/viewer";
import { toMermaid } from "@/lib/fsm/diagram";
import { TRANSITIONS, type RunEffect, type Transition } from "@/lib/fsm/table";
import { transitionCounts, type TransitionCount } from "@/lib/insight/queries";
import { parseWindow, WINDOWS, type WindowKey } from "@/lib/insight/windows";
import { StateDiagram } from "./state-diagram";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "State machine" };
export const dynamic = "force-dynamic";

const STATE_MACHINE_WINDOWS: WindowKey[] = ["1h", "6h"];

const key = (from: string | null, event: string, to: string) => `${from ?? "-"}|${event}|${to}`;

function runEffect(run: RunEffect | undefined): string {
  if (!run) return "—";
  if (typeof run === "string") return run === "open" ? "opens a run" : run === "start" ? "run started" : `run → ${run}`;
  return Object.entries(run)
    .map(([actor, outcome]) => `${actor}: run → ${outcome}`)
    .join("; ");
}

function also(t: Transition): string {
  return [t.needsAttemptsLeft ? "needs attempts left" : "", t.note].filter(Boolean).join("; ") || "—";
}

/** The transition table the engine uses (lib/fsm/table.ts), drawn and listed, with how often each move happened. */
export default async function StateMachinePage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("insight:read", "/state-machine");
  const sp = await searchParams;
  const asked = parseWindow(Array.isArray(sp.window) ? sp.window[0] : sp.window, "1h");
  // Every event of the window is counted: 24 h of a busy system is millions of events (docs/insight.md), so at most 6 h.
  const window: WindowKey = STATE_MACHINE_WINDOWS.includes(asked) ? asked : "6h";
  let counts: TransitionCount[] | null = null;
  try {
    counts = await withViewerRead(viewer, (tx) => transitionCounts(tx, window));
  } catch (err) {
    console.error("/state-machine: could not count transitions:", err);
  }
  const byKey = new Map((counts ?? []).map((c) => [key(c.from, c.event, c.to), c.n]));
  const countOf = (from: string | null, event: string, to: string) => byKey.get(key(from, event, to)) ?? 0;
  const total = [...byKey.values()].reduce((a, b) => a + b, 0);

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">State machine</h1>
          <p className="mt-1 text-sm text-neutral-600">
            Generated from <span className="font-mono">lib/fsm/table.ts</span>, the table the write path enforces. Counts are applied transitions in
            the {WINDOWS[window].label}
            {counts ? `: ${numbers.format(total)} in all` : ""}.
          </p>
        </div>
        <nav aria-label="Window" className="inline-flex rounded-md border border-neutral-300 bg-white p-0.5 text-sm shadow-xs">
          {STATE_MACHINE_WINDOWS.map((k) => (
            <Link
              key={k}
              href={`/state-machine?window=${k}`}
              aria-current={k === window ? "page" : undefined}
              className={`rounded px-3 py-1 font-medium ${k === window ? "bg-neutral-900 text-white" : "text-neutral-600 hover:bg-neutral-100"}`}
            >
              {k}
            </Link>
          ))}
        </nav>
      </div>
      {!counts && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900">
          Could not count transitions: the database did not answer. The table and diagram below are shown without counts.
        </div>
      )}

      <Card title="Diagram" id="diagram" aside="arrows back to an earlier state arc over the top">
        <StateDiagram counts={Object.fromEntries(TRANSITIONS.map((t) => [key(t.from, t.event, t.to), countOf(t.from, t.event, t.to)]))} />
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer text-neutral-600">Mermaid source</summary>
          <pre className="mt-2 overflow-x-auto rounded-md bg-neutral-50 p-3 font-mono text-xs">{toMermaid()}</pre>
        </details>
      </Card>

      <Card title="Transition table" id="transitions" aside={`${TRANSITIONS.length} transitions`}>
        <DataTable
          caption="Transitions"
          rows={TRANSITIONS}
          rowKey={(t) => key(t.from, t.event, t.to)}
          rowLabel={(t) => `${t.from ?? "new"} ${t.event} ${t.to}: ${countOf(t.from, t.event, t.to)}`}
          columns={[
            { header: "From", cell: (t) => (t.from ? <StateBadge state={t.from} /> : <span className="text-xs text-neutral-600">new job</span>) },
            { header: "Event", className: "font-mono text-xs font-medium", cell: (t) => t.event },
            { header: "To", cell: (t) => <StateBadge state={t.to} /> },
            { header: "Who", className: "text-xs text-neutral-600", cell: (t) => t.actors.join(", ") },
            { header: "Run record", className: "text-xs text-neutral-600", cell: (t) => runEffect("run" in t ? t.run : undefined) },
            { header: "Also", className: "text-xs text-neutral-600", cell: (t) => also(t) },
            {
              header: window,
              align: "right",
              className: "tabular-nums",
              cell: (t) => {
                const n = countOf(t.from, t.event, t.to);
                return <span className={n ? "font-semibold" : "text-neutral-600"}>{numbers.format(n)}</span>;
              },
            },
          ]}
        />
      </Card>
    </div>
  );
}
