"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { duration } from "./format";

type Row = { label: string; p50: number | null; p95: number | null };

/** p50 and p95 of a duration per category (job type), as horizontal bars. */
export function PercentileChart({ rows, color, light }: { rows: Row[]; color: string; light: string }) {
  return (
    <ResponsiveContainer width="100%" height={Math.max(120, 44 * rows.length + 40)}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 0 }} barGap={1}>
        <CartesianGrid stroke="#e5e5e5" horizontal={false} />
        <XAxis type="number" tickFormatter={duration} tick={{ fontSize: 11, fill: "#737373" }} />
        <YAxis type="category" dataKey="label" width={130} tick={{ fontSize: 11, fill: "#404040" }} />
        <Tooltip formatter={(v) => duration(v)} contentStyle={{ fontSize: 12 }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar dataKey="p50" name="p50" fill={light} isAnimationActive={false} />
        <Bar dataKey="p95" name="p95" fill={color} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
