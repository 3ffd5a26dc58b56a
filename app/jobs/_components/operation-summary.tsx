"use client";

import Link from "next/link";
import { numbers } from "@/components/numbers";
import { TimeAgo } from "@/components/time-zone";
import { STATE_STYLES } from "@/components/state-badge";
import { useNow } from "@/components/use-now";
import type { JobsResponse } from "@/lib/client/wire";
import { isLeased, isTerminal } from "@/lib/fsm/machine";
import { LEASED_STATES, STATES, TERMINAL_STATES, type JobState } from "@/lib/fsm/table";
import type { JobFilters } from "@/lib/jobs/filters";
import { jobsHref } from "./url";

type Outcome = NonNullable<JobsResponse["operation"]>;

/** Where the applied jobs are now, grouped as an operator asks: did they go through, die again, or are they still at it? */
// Derived from the table (lib/fsm/table.ts): each terminal state alone, the leased ones, then the rest.
const GROUPS: { label: (event: string | null) => string; states: readonly JobState[] }[] = [
  ...TERMINAL_STATES.map((state) => ({
    label: (event: string | null) => (state === "dead" && event === "replay" ? "dead again" : state),
    states: [state],
  })),
  { label: () => "still running", states: LEASED_STATES },
  {
    label: () => "waiting (queued or retrying)",
    states: STATES.filter((s) => !isTerminal(s) && !isLeased(s)),
  },
];

/**
 * The head of the jobs list under `operation=<id>`: what the operation was (staff), how many jobs it
 * applied to, refused or has not reached yet, and where the applied ones are now — refreshed with the
 * list's own poll. A group of one state links to its tab.
 */
export function OperationSummary({ filters, outcome }: { filters: JobFilters; outcome: Outcome | null | undefined }) {
  const now = useNow({ tickMs: 5_000 });
  if (outcome === undefined) return null;
  if (outcome === null) {
    return (
      <p role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-2.5 text-sm text-amber-950">
        No bulk operation has the id <span className="font-mono">{filters.operation}</span>.{" "}
        <Link href={jobsHref({})} className="underline underline-offset-2">
          Show every job
        </Link>
      </p>
    );
  }
  const op = outcome.operation;
  const { applied, refused, pending } = outcome.items;
  const event = op?.event ?? null;
  return (
    <section aria-label="Operation outcome" className="space-y-3 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 className="text-sm font-semibold">
          {op ? (
            <>
              Bulk {op.event} · <span className="font-normal">{op.description}</span>
            </>
          ) : (
            "Jobs touched by one operation"
          )}
        </h2>
        <Link href={jobsHref({})} prefetch={false} className="text-xs text-sky-800 underline underline-offset-2">
          Show every job
        </Link>
        {op && (
          <p className="w-full text-xs text-neutral-600">
            by {op.actorId} · started <TimeAgo at={new Date(op.createdAt)} now={now} /> ·{" "}
            <span className={op.status === "running" ? "text-sky-800" : op.status === "failed" ? "text-red-800" : "text-emerald-800"}>
              {op.status === "running" ? "still applying" : op.status === "failed" ? "stopped by an error" : "applied"}
            </span>
          </p>
        )}
      </div>
      <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm">
        <Count label="applied" n={applied} />
        <Count label="refused" n={refused} hint="moved since the dry run, or not allowed from their state" />
        {pending > 0 && <Count label="not reached yet" n={pending} />}
      </dl>
      <div>
        <h3 className="mb-1.5 text-xs font-medium text-neutral-600">Where the {numbers.format(applied)} applied jobs are now (live)</h3>
        <ul aria-label="Where they are now" className="flex flex-wrap gap-2">
          {GROUPS.map((g) => {
            const n = g.states.reduce((sum, s) => sum + (outcome.now[s] ?? 0), 0);
            const style = STATE_STYLES[g.states[0]!];
            const body = (
              <>
                <span aria-hidden="true" className={`size-2 rounded-full ${style.swatch}`} />
                <span className="font-semibold tabular-nums">{numbers.format(n)}</span> {g.label(event)}
              </>
            );
            const className = `inline-flex items-center gap-1.5 rounded-full px-2.5 py-1 text-sm ring-1 ring-inset ${n === 0 ? "bg-neutral-50 text-neutral-600 ring-neutral-200" : style.badge}`;
            return (
              <li key={g.states.join()}>
                {g.states.length === 1 && n > 0 ? (
                  <Link href={jobsHref({ operation: filters.operation, state: g.states[0] })} className={`${className} hover:underline`}>
                    {body}
                  </Link>
                ) : (
                  <span className={className}>{body}</span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}

function Count({ label, n, hint }: { label: string; n: number; hint?: string }) {
  return (
    <div className="flex items-baseline gap-1.5" title={hint}>
      <dt className="text-neutral-600">{label}</dt>
      <dd className="font-semibold tabular-nums" aria-label={`${label}: ${n}`}>
        {numbers.format(n)}
      </dd>
    </div>
  );
}
