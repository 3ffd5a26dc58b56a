"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/** Counts per category as horizontal bars, largest first (the caller sorts). */
export function CountBars({ rows, color, name }: { rows: { label: string; n: number }[]; color: string; name: string }) {
  return (
    <ResponsiveContainer width="100%" height={Math.max(100, 30 * rows.length + 30)}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="#e5e5e5" horizontal={false} />
        <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11, fill: "#737373" }} />
        <YAxis type="category" dataKey="label" width={150} tick={{ fontSize: 11, fill: "#404040" }} />
        <Tooltip contentStyle={{ fontSize: 12 }} />
        <Bar dataKey="n" name={name} fill={color} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
