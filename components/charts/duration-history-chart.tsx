"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTimeZone } from "@/components/time-zone";
import { INK } from "@/components/timeline/tones";
import type { TypeHistoryPoint } from "@/lib/metrics/history";
import { duration } from "./format";
import { AXIS_TICK, TOOLTIP } from "./ink";

/**
 * Run time p50 and p95 per step, on a logarithmic axis (a 40 ms p50 beside a 5 min p95). A step with
 * too few runs has no point: the lines break there.
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
  return (
    <ResponsiveContainer width="100%" height={240} initialDimension={{ width: 1100, height: 240 }}>
      <LineChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
        <CartesianGrid stroke={INK.grid} vertical={false} />
        <XAxis dataKey="t" tickFormatter={(t) => tick(String(t), tz)} tick={AXIS_TICK} minTickGap={24} />
        <YAxis scale="log" domain={["auto", "auto"]} allowDataOverflow tickFormatter={duration} tick={AXIS_TICK} width={56} />
        <Tooltip labelFormatter={(t) => label(String(t), tz)} formatter={(v) => duration(v)} contentStyle={TOOLTIP} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Line dataKey="runP50Ms" name="p50" stroke="var(--color-violet-400)" strokeWidth={1.5} dot={{ r: 1.5 }} isAnimationActive={false} />
        <Line dataKey="runP95Ms" name="p95" stroke="var(--color-violet-700)" strokeWidth={1.5} dot={{ r: 1.5 }} isAnimationActive={false} />
      </LineChart>
    </ResponsiveContainer>
  );
}
