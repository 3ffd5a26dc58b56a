"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { useTimeZone } from "@/components/time-zone";
import { INK } from "@/components/timeline/tones";
import type { TypeHistoryPoint } from "@/lib/metrics/history";
import { duration } from "./format";
import { ChartBox } from "./chart-box";
import { AXIS_TICK, TOOLTIP } from "./ink";

/** The log axis' ticks: round durations, 1 ms to a day. */
const LADDER = [1, 10, 100, 1_000, 10_000, 60_000, 600_000, 3_600_000, 36_000_000, 86_400_000];

/** The ladder's ticks that span `values`, one below the least and one above the most. */
function ticksFor(values: number[]): number[] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const first = Math.max(
    0,
    LADDER.findLastIndex((t) => t <= lo),
  );
  const last = LADDER.findIndex((t) => t >= hi);
  return LADDER.slice(first, last < 0 ? LADDER.length : last + 1);
}

/**
 * Run time p50 and p95 per step, on a logarithmic axis (a 40 ms p50 beside a 5 min p95) ticked at
 * round durations. A step with too few runs has no point: the lines break there.
 */
export function DurationHistoryChart({
  points,
  tick,
  label,
}: {
  points: TypeHistoryPoint[];
  tick: (iso: string, tz: string) => string;
  label: (iso: string, tz: string) => string;
}) {
  const tz = useTimeZone();
  const ticks = ticksFor(points.flatMap((p) => [p.runP50Ms, p.runP95Ms]).filter((v): v is number => v !== null && v > 0));
  return (
    <ChartBox width={1100} height={240}>
      <LineChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
        <CartesianGrid stroke={INK.grid} vertical={false} />
        <XAxis dataKey="t" tickFormatter={(t) => tick(String(t), tz)} tick={AXIS_TICK} minTickGap={24} />
        <YAxis
          scale="log"
          domain={[ticks[0] ?? 1, ticks.at(-1) ?? 1_000]}
          ticks={ticks}
          allowDataOverflow
          tickFormatter={duration}
          tick={AXIS_TICK}
          width={56}
        />
        <Tooltip labelFormatter={(t) => label(String(t), tz)} formatter={(v) => duration(v)} contentStyle={TOOLTIP} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Line dataKey="runP50Ms" name="p50" stroke="var(--color-violet-400)" strokeWidth={1.5} dot={{ r: 1.5 }} isAnimationActive={false} />
        <Line dataKey="runP95Ms" name="p95" stroke="var(--color-violet-700)" strokeWidth={1.5} dot={{ r: 1.5 }} isAnimationActive={false} />
      </LineChart>
    </ChartBox>
  );
}
