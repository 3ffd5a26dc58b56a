"use client";

import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ThroughputPoint } from "@/lib/insight/queries";
import { OUTCOME_COLORS, hhmm, percent } from "./format";

/** Ended attempts per step, stacked by outcome, with the failure rate as a line on its own axis. */
export function ThroughputChart({ points }: { points: ThroughputPoint[] }) {
  return (
    <ResponsiveContainer width="100%" height={260}>
      <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="#e5e5e5" vertical={false} />
        <XAxis dataKey="t" tickFormatter={hhmm} tick={{ fontSize: 11, fill: "#737373" }} minTickGap={24} />
        <YAxis yAxisId="n" allowDecimals={false} tick={{ fontSize: 11, fill: "#737373" }} width={40} />
        <YAxis yAxisId="rate" orientation="right" domain={[0, 1]} tickFormatter={percent} tick={{ fontSize: 11, fill: "#737373" }} width={40} />
        <Tooltip
          labelFormatter={(t) => `${hhmm(String(t))} UTC`}
          formatter={(v, name) => (name === "failure rate" ? percent(v) : v)}
          contentStyle={{ fontSize: 12 }}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar yAxisId="n" dataKey="succeeded" name="succeeded" stackId="a" fill={OUTCOME_COLORS.succeeded} isAnimationActive={false} />
        <Bar yAxisId="n" dataKey="failed" name="failed" stackId="a" fill={OUTCOME_COLORS.failed} isAnimationActive={false} />
        <Bar yAxisId="n" dataKey="leaseExpired" name="lease expired" stackId="a" fill={OUTCOME_COLORS.leaseExpired} isAnimationActive={false} />
        <Bar yAxisId="n" dataKey="other" name="cancelled / abandoned" stackId="a" fill={OUTCOME_COLORS.other} isAnimationActive={false} />
        <Line yAxisId="rate" dataKey="failureRate" name="failure rate" stroke="#171717" dot={false} strokeWidth={1.5} connectNulls isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
