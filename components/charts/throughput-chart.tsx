"use client";

import { Bar, CartesianGrid, ComposedChart, Legend, Line, Tooltip, XAxis, YAxis } from "recharts";
import type { ThroughputPoint } from "@/lib/insight/queries";
import { MIN_SAMPLE } from "@/lib/metrics/history";
import { INK, TONES } from "@/components/timeline/tones";
import { useTimeZone } from "@/components/time-zone";
import { hhmm, hhmmZone, percent } from "./format";
import { ChartBox } from "./chart-box";
import { AXIS_TICK, TOOLTIP } from "./ink";

/**
 * Ended attempts per step, stacked by outcome, with the failure rate as a line on its own axis.
 * A step with fewer than MIN_SAMPLE attempts has no rate (one failure of one is no 100% spike), nor
 * does one with none: the line breaks there instead of drawing a slope across it. `tick` and
 * `label` format a step's time (default: its clock time); `width` is the width drawn on the server,
 * before the browser measures the page.
 */
export function ThroughputChart({
  points,
  tick,
  label,
  width = 1100,
}: {
  points: ThroughputPoint[];
  tick?: (iso: string, tz: string) => string;
  label?: (iso: string, tz: string) => string;
  width?: number;
}) {
  const tz = useTimeZone();
  const data = points.map((p) => (p.succeeded + p.failed + p.leaseExpired + p.other < MIN_SAMPLE ? { ...p, failureRate: null } : p));
  return (
    <ChartBox width={width} height={260}>
      <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke={INK.grid} vertical={false} />
        <XAxis dataKey="t" tickFormatter={(t) => (tick ?? hhmm)(String(t), tz)} tick={AXIS_TICK} minTickGap={24} />
        <YAxis yAxisId="n" allowDecimals={false} tick={AXIS_TICK} width={40} />
        <YAxis yAxisId="rate" orientation="right" domain={[0, 1]} tickFormatter={percent} tick={AXIS_TICK} width={40} />
        <Tooltip
          labelFormatter={(t) => (label ?? hhmmZone)(String(t), tz)}
          formatter={(v, name) => (name === "failure rate" ? percent(v) : v)}
          contentStyle={TOOLTIP}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar yAxisId="n" dataKey="succeeded" name="succeeded" stackId="a" fill={TONES.succeeded.solid} isAnimationActive={false} />
        <Bar yAxisId="n" dataKey="failed" name="failed" stackId="a" fill={TONES.failed.solid} isAnimationActive={false} />
        <Bar yAxisId="n" dataKey="leaseExpired" name="lease expired" stackId="a" fill={TONES.lease_expired.solid} isAnimationActive={false} />
        <Bar yAxisId="n" dataKey="other" name="cancelled / abandoned" stackId="a" fill={TONES.cancelled.solid} isAnimationActive={false} />
        <Line
          yAxisId="rate"
          dataKey="failureRate"
          name="failure rate"
          stroke={INK.strong}
          dot={{ r: 1.5, fill: INK.strong }}
          strokeWidth={1.5}
          isAnimationActive={false}
        />
      </ComposedChart>
    </ChartBox>
  );
}
