"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Card, Empty } from "@/components/charts/card";
import { DurationHistoryChart } from "@/components/charts/duration-history-chart";
import { day, dayHhmm, dayHhmmZone, hhmm, hhmmZone } from "@/components/charts/format";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { numbers } from "@/components/numbers";
import { PageHeader, useLive } from "@/components/page-header";
import { typeHistoryQuery } from "@/lib/client/queries";
import type { TypeHistoryResponse } from "@/lib/client/wire";
import { HISTORY_RANGES, MIN_SAMPLE, type HistoryRange } from "@/lib/metrics/history";
import { Breadcrumb } from "@/components/breadcrumb";
import { RangeLinks } from "../range-links";

/** The roll-up adds a pass every 15 s: a minute is fresh enough for charts over days. */
const POLL_MS = 60_000;

const TICKS: Record<HistoryRange, { tick: (iso: string, tz: string) => string; label: (iso: string, tz: string) => string }> = {
  "24h": { tick: hhmm, label: hhmmZone },
  "7d": { tick: dayHhmm, label: dayHhmmZone },
  "30d": { tick: day, label: (iso, tz) => day(iso, tz) },
};

export function TypeHistoryView({
  type,
  range,
  initial,
  renderedAt,
}: {
  type: string;
  range: HistoryRange;
  initial: TypeHistoryResponse | null;
  renderedAt: number;
}) {
  const live = useLive(POLL_MS);
  const query = useQuery({ ...typeHistoryQuery(type, range), initialData: initial ?? undefined, initialDataUpdatedAt: renderedAt, ...live.poll });
  const points = query.data?.points;
  const r = HISTORY_RANGES[range];
  const attempts = points?.reduce((n, p) => n + p.succeeded + p.failed + p.leaseExpired + p.other, 0) ?? 0;
  const { tick, label } = TICKS[range];
  return (
    <div className="space-y-6">
      <Breadcrumb href={`/types?range=${range}`} label="Job types">
        <span className="font-mono text-neutral-700">{type}</span>
      </Breadcrumb>
      <PageHeader
        title={type}
        description={
          <>
            {points ? `${numbers.format(attempts)} attempts over the ${r.label}, one step per ${r.step}. ` : ""}A failure rate or a percentile is
            drawn for a step with {MIN_SAMPLE} attempts or more.{" "}
            <Link href={`/jobs?type=${encodeURIComponent(type)}`} className="font-medium text-sky-700 hover:underline">
              Its jobs →
            </Link>
          </>
        }
        live={liveStatus(live, query, { serverNow: renderedAt })}
      >
        <RangeLinks base={`/types/${encodeURIComponent(type)}`} range={range} />
      </PageHeader>
      <QueryLoadError query={query} refreshing="Could not refresh the charts; showing the last ones received." loading="Could not load the charts." />
      {points && attempts === 0 ? (
        <Empty>
          No attempt of {type} ended in the {r.label}.
        </Empty>
      ) : (
        points && (
          <>
            <Card title="Throughput and failure rate" id="type-throughput" aside={`attempts that ended per ${r.step}, by outcome`}>
              <div aria-label="Throughput chart">
                <ThroughputChart points={points} tick={tick} label={label} />
              </div>
            </Card>
            <Card title="Run time" id="type-run-time" aside={`p50 and p95 per ${r.step}, from start to end of each attempt`}>
              <div aria-label="Run time chart">
                {points.some((p) => p.runP95Ms !== null) ? (
                  <DurationHistoryChart points={points} tick={tick} label={label} />
                ) : (
                  <Empty>
                    No {r.step} of the {r.label} has {MIN_SAMPLE} runs or more.
                  </Empty>
                )}
              </div>
            </Card>
          </>
        )
      )}
    </div>
  );
}
