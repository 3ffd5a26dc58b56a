"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { isFailingOf, PageHeader, useLive } from "@/components/page-header";
import { numbers } from "@/components/numbers";
import { countsQuery } from "@/lib/client/queries";
import type { CountsResponse, OverviewResponse } from "@/lib/client/wire";
import { STATE_STYLES } from "@/components/state-badge";
import { isTerminal } from "@/lib/fsm/machine";
import { STATES } from "@/lib/fsm/table";
import type { WindowKey } from "@/lib/insight/windows";
import { InsightPanels } from "./insight-panels";
import { FIRST_WINDOW } from "./window";

const POLL_MS = 2_000;

/** The counts and the first window's charts, read with the page on the server (app/page.tsx); null when that failed. */
type Initial = { counts: CountsResponse; overview: OverviewResponse } | null;

export function OverviewView({ initial, renderedAt }: { initial: Initial; renderedAt: number }) {
  const live = useLive(POLL_MS);
  const [range, setRange] = useState<WindowKey>(FIRST_WINDOW);
  const query = useQuery({ ...countsQuery(), initialData: initial?.counts, initialDataUpdatedAt: renderedAt, ...live.poll });
  const data = query.data;
  const lastError = useLastError(query.error);
  const isFailing = isFailingOf(query);
  const isLoading = !data && !isFailing;
  // Known only once a response arrives; a failed first load shows "unavailable", not zeros.
  const figure = (n: number | undefined) => (n !== undefined ? numbers.format(n) : isLoading ? "loading" : "unavailable");
  // A share of a lower bound is no share at all: with any state capped, none is shown.
  const isExact = !!data && data.capped.length === 0;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Overview"
        description="Jobs by state, throughput, latency, errors and poison jobs across every queue and tenant."
        live={liveStatus(live, query, { serverNow: renderedAt })}
      />

      <QueryLoadError
        query={query}
        refreshing="Could not refresh the counts; showing the last ones received."
        loading="Could not load the counts."
        message={lastError?.message}
      />
      {isLoading && (
        <p role="status" className="text-sm text-neutral-600">
          Loading counts…
        </p>
      )}

      <section aria-labelledby="total-heading" className="rounded-lg border border-neutral-200 bg-white p-5 shadow-xs">
        <div role="group" aria-label={`total: ${figure(data?.total)}${data?.capped.length ? "+" : ""}`} className="flex items-baseline gap-3">
          <h2 id="total-heading" className="text-sm font-medium text-neutral-600">
            Total
          </h2>
          <Figure value={data?.total} text={`${figure(data?.total)}${data?.capped.length ? "+" : ""}`} className="text-3xl" />
          <span className="text-sm text-neutral-600">jobs</span>
        </div>
        {isExact ? (
          <DistributionBar data={data} />
        ) : (
          data && (
            <p className="mt-3 text-xs text-neutral-600">
              Counting stops at {numbers.format(Math.max(...data.capped.map((st) => data.counts[st])))} jobs per state to keep this page fast at any
              size, so shares are not shown.
            </p>
          )
        )}
      </section>

      <ul aria-label="Jobs by state" aria-busy={isLoading} className="grid grid-cols-2 gap-3 sm:grid-cols-3">
        {STATES.map((state) => {
          const n = data?.counts[state];
          const plus = data?.capped.includes(state) ? "+" : "";
          return (
            <li
              key={state}
              aria-label={`${state}: ${figure(n)}${plus}`}
              title={plus ? "Counting stops here to keep the page fast at any size" : undefined}
              className="rounded-lg border border-neutral-200 bg-white p-4 shadow-xs"
            >
              <div className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1">
                <span className="flex items-center gap-2 font-mono text-sm text-neutral-700">
                  <span aria-hidden="true" className={`size-2 rounded-full ${STATE_STYLES[state].swatch}`} />
                  {state}
                </span>
                {isTerminal(state) && <span className="hidden text-xs text-neutral-600 sm:inline">terminal</span>}
              </div>
              <div className="mt-3 flex items-baseline justify-between gap-2">
                <Figure value={n} text={`${figure(n)}${plus}`} className="text-2xl" />
                {isExact && n !== undefined && data.total > 0 && (
                  <span className="text-xs text-neutral-600 tabular-nums">{percent(n, data.total)}</span>
                )}
              </div>
            </li>
          );
        })}
      </ul>

      {data?.total === 0 && (
        <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-10 text-center">
          <p className="font-medium">No jobs yet</p>
          <p className="mt-1 text-sm text-neutral-600">Jobs appear here as soon as they are submitted.</p>
        </div>
      )}

      <InsightPanels
        isPaused={live.isPaused}
        window={range}
        onWindow={setRange}
        initial={initial && range === FIRST_WINDOW ? { data: initial.overview, at: renderedAt } : undefined}
      />
    </div>
  );
}

/** The most recent error, kept while a retry is in flight (TanStack clears `error` when it refetches). */
function useLastError(error: Error | null) {
  const [last, setLast] = useState<Error | null>(error);
  // Adjusting state while rendering, as React documents for values derived from a previous render.
  if (error && error !== last) setLast(error);
  return last;
}

function Figure({ value, text, className }: { value: number | undefined; text: string; className: string }) {
  if (value === undefined && text === "loading") {
    return <span aria-hidden="true" className="inline-block h-7 w-16 rounded bg-neutral-200 motion-safe:animate-pulse" />;
  }
  if (value === undefined) {
    return (
      <span aria-hidden="true" className={`${className} font-semibold text-neutral-300`}>
        —
      </span>
    );
  }
  return (
    <data value={value} className={`${className} font-semibold tracking-tight tabular-nums`}>
      {text}
    </data>
  );
}

/** Each state's share of all jobs, in the order of STATES; decorative, the numbers are in the cards. */
function DistributionBar({ data }: { data: CountsResponse }) {
  return (
    <div aria-hidden="true" className="mt-4 flex h-2 gap-px overflow-hidden rounded-full bg-neutral-100">
      {data.total > 0 &&
        STATES.map((state) => {
          const n = data.counts[state];
          if (n === 0) return null;
          return <div key={state} className={STATE_STYLES[state].swatch} style={{ width: `${(n / data.total) * 100}%` }} />;
        })}
    </div>
  );
}

function percent(n: number, total: number) {
  const p = (n / total) * 100;
  if (p > 0 && p < 1) return "<1%";
  return `${Math.round(p)}%`;
}

/** While the server reads the counts and charts: the page's frame, so a navigation shows at once. */
export function OverviewLoading() {
  return (
    <div className="space-y-6" aria-busy="true">
      <PageHeader title="Overview" description="Jobs by state, throughput, latency, errors and poison jobs across every queue and tenant." />
      <p role="status" className="text-sm text-neutral-600">
        Loading counts and charts…
      </p>
      <div aria-hidden="true" className="h-28 rounded-lg bg-neutral-100 motion-safe:animate-pulse" />
      <div aria-hidden="true" className="grid grid-cols-2 gap-3 sm:grid-cols-3">
        {STATES.map((s) => (
          <div key={s} className="h-24 rounded-lg bg-neutral-100 motion-safe:animate-pulse" />
        ))}
      </div>
    </div>
  );
}
