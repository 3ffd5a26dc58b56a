"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ActorCell, JobLink } from "@/components/cells";
import { Card, Empty } from "@/components/charts/card";
import { CountBars } from "@/components/charts/count-bars";
import { PercentileChart } from "@/components/charts/percentile-chart";
import { RejectionKindBadge } from "@/components/charts/rejection-kind";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { DataTable } from "@/components/data-table";
import { QueryLoadError } from "@/components/live-query";
import { numbers } from "@/components/numbers";
import { TimeAgo } from "@/components/time-zone";
import { StateBadge } from "@/components/state-badge";
import { Segmented } from "@/components/segmented";
import { useNow } from "@/components/use-now";
import { overviewQuery } from "@/lib/client/queries";
import type { OverviewResponse } from "@/lib/client/wire";
import { LATENCY_SAMPLE, WINDOW_KEYS, WINDOWS, type WindowKey } from "@/lib/insight/windows";
import { shortId } from "@/lib/jobs/short-id";
import { MIN_SAMPLE } from "@/lib/metrics/history";

/** Charts refresh less often than the counts: each reads a window of attempts. */
const CHARTS_POLL_MS = 10_000;

export function InsightPanels({
  isPaused,
  window,
  onWindow,
  initial,
}: {
  isPaused: boolean;
  window: WindowKey;
  onWindow: (w: WindowKey) => void;
  /** This window's charts as the server read them with the page. */
  initial?: { data: OverviewResponse; at: number };
}) {
  const query = useQuery({
    ...overviewQuery(window),
    initialData: initial?.data,
    initialDataUpdatedAt: initial?.at,
    refetchInterval: isPaused ? false : CHARTS_POLL_MS,
    refetchOnWindowFocus: !isPaused,
    // The last window's charts stay while another window loads.
    placeholderData: (prev) => prev,
  });
  const now = useNow();
  const data = query.data;
  const label = WINDOWS[window].label;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-lg font-semibold tracking-tight">Activity</h2>
        <Segmented label="Window" value={window} onChange={onWindow} options={WINDOW_KEYS.map((k) => ({ value: k, label: k }))} />
      </div>

      <QueryLoadError query={query} refreshing="Could not refresh the charts; showing the last ones received." loading="Could not load the charts." />

      <Card
        title="Throughput and failure rate"
        id="throughput"
        aside={`attempts that ended, ${label}, by outcome; a failure rate where a step has ${MIN_SAMPLE} or more`}
      >
        <div aria-label="Throughput chart" aria-busy={!data}>
          {data ? (
            data.series.some((p) => p.succeeded + p.failed + p.leaseExpired + p.other > 0) ? (
              <ThroughputChart points={data.series} />
            ) : (
              <Empty>No attempt ended in the {label}.</Empty>
            )
          ) : (
            <Skeleton h={260} />
          )}
        </div>
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <LatencyCard id="queue-wait" title="Queue wait by type" data={data} label={label} pick={(r) => [r.queueP50, r.queueP95]} hue="sky" />
        <LatencyCard id="run-time" title="Run time by type" data={data} label={label} pick={(r) => [r.runP50, r.runP95]} hue="violet" />
      </div>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Busiest error classes" id="errors" aside={label}>
          <div aria-label="Error classes chart">
            {data ? (
              data.errors.length ? (
                <>
                  <CountBars
                    rows={data.errors.map((e) => ({ label: e.errorClass, n: e.attempts }))}
                    color="var(--color-red-600)"
                    name="failed attempts"
                  />
                  <ul className="mt-3 space-y-1 text-xs text-neutral-600">
                    {data.errors.map((e) => (
                      <li key={e.errorClass}>
                        <Link
                          href={`/jobs?errorClass=${encodeURIComponent(e.errorClass)}`}
                          className="font-mono font-medium text-neutral-900 hover:underline"
                        >
                          {e.errorClass}
                        </Link>{" "}
                        {numbers.format(e.attempts)} attempts of {numbers.format(e.jobs)} jobs
                      </li>
                    ))}
                  </ul>
                </>
              ) : (
                <Empty>No errors in the {label}.</Empty>
              )
            ) : (
              <Skeleton h={120} />
            )}
          </div>
        </Card>
        <PoisonCard poison={data?.poison} now={now} />
      </div>

      <Card
        title="Recent rejections"
        id="recent-rejections"
        aside={
          <Link href="/rejections" className="hover:text-neutral-900 hover:underline">
            All rejections →
          </Link>
        }
      >
        {data ? (
          data.rejections.length ? (
            <DataTable
              caption="Recent rejections"
              rows={data.rejections}
              rowKey={(r) => r.id}
              columns={[
                { header: "Kind", cell: (r) => <RejectionKindBadge kind={r.kind} /> },
                { header: "Event", className: "font-mono text-xs", cell: (r) => r.event },
                { header: "By", className: "text-xs", cell: (r) => <ActorCell kind={r.actorKind} id={r.actorId} /> },
                { header: "Job", cell: (r) => <JobLink id={r.jobId} /> },
                { header: "When", className: "text-xs text-neutral-600", cell: (r) => <TimeAgo at={new Date(r.at)} now={now} /> },
                { header: "Reason", className: "max-w-xs text-xs text-neutral-700", cell: (r) => r.reason },
              ]}
            />
          ) : (
            <Empty>No transition has been refused.</Empty>
          )
        ) : (
          <Skeleton h={80} />
        )}
      </Card>
    </div>
  );
}

type Latency = OverviewResponse["latency"][number];

/** p50 and p95 of one duration per job type, over the newest attempts of the window. */
function LatencyCard(props: {
  id: string;
  title: string;
  data: OverviewResponse | undefined;
  label: string;
  pick: (r: Latency) => [number | null, number | null];
  hue: "sky" | "violet";
}) {
  const { id, title, data, label, pick, hue } = props;
  return (
    <Card
      title={title}
      id={id}
      aside={
        <>
          p50 and p95 of the newest {numbers.format(LATENCY_SAMPLE)} attempts, {label} ·{" "}
          <Link href="/types" className="hover:text-neutral-900 hover:underline">
            each type over days →
          </Link>
        </>
      }
    >
      <div aria-label={`${title.replace(" by type", "")} chart`}>
        {!data ? (
          <Skeleton h={160} />
        ) : data.latency.length === 0 ? (
          <Empty>No attempts in the {label}.</Empty>
        ) : (
          <PercentileChart
            rows={data.latency.map((r) => {
              const [p50, p95] = pick(r);
              return { label: r.type, p50, p95 };
            })}
            color={`var(--color-${hue}-700)`}
            light={`var(--color-${hue}-400)`}
          />
        )}
      </div>
    </Card>
  );
}

function PoisonCard({ poison, now }: { poison: OverviewResponse["poison"] | undefined; now: number }) {
  return (
    <Card
      title="Poison suspects"
      id="poison"
      aside={
        <Link href="/jobs?poison=1" className="hover:text-neutral-900 hover:underline">
          In the jobs list →
        </Link>
      }
    >
      <p className="-mt-2 mb-3 text-xs text-neutral-600">
        Jobs blamed for two or more worker crashes in the last 7 days: they kill or hang their workers. The other jobs a crash took down are handed
        back without losing an attempt.
      </p>
      {!poison ? (
        <Skeleton h={80} />
      ) : poison.length === 0 ? (
        <Empty>No poison suspects.</Empty>
      ) : (
        <ul aria-label="Poison suspects" className="divide-y divide-neutral-100">
          {poison.map((p) => (
            <li key={p.jobId} className="py-2 text-sm">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Link href={`/jobs/${p.jobId}`} className="font-mono text-xs font-medium hover:underline">
                  {shortId(p.jobId)}
                </Link>
                <span className="font-mono text-xs text-neutral-600">{p.type}</span>
                <span className="text-xs text-neutral-600">{p.tenantId}</span>
                <StateBadge state={p.state} />
                <span className="text-xs font-medium text-orange-800">
                  {p.crashes} crashes{p.poisoned ? ", stopped as poison" : ""}
                </span>
                {p.tookDown > 0 && (
                  <span className="text-xs text-neutral-600">
                    took down {p.tookDown} other {p.tookDown === 1 ? "job" : "jobs"}
                  </span>
                )}
                <span className="text-xs text-neutral-600">
                  <TimeAgo at={new Date(p.lastCrashAt)} now={now} />
                </span>
              </div>
              <p className="mt-1 text-xs text-neutral-600">
                Workers that died on it:{" "}
                {p.workers.map((w, i) => (
                  <span key={`${w.id}-${w.attempt}`}>
                    {i > 0 && ", "}
                    <span className="font-mono">{w.id}</span>
                    {w.status !== "unknown" && <span className={w.status === "live" ? "text-emerald-700" : "text-red-700"}> ({w.status})</span>}
                  </span>
                ))}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function Skeleton({ h }: { h: number }) {
  return <div aria-hidden="true" style={{ height: h }} className="w-full rounded-md bg-neutral-100 motion-safe:animate-pulse" />;
}
