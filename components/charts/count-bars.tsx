"use client";

import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { INK } from "@/components/timeline/tones";
import { ChartBox } from "./chart-box";
import { AXIS_TICK, CATEGORY_TICK, TOOLTIP } from "./ink";

/** Counts per category as horizontal bars, largest first (the caller sorts). */
export function CountBars({ rows, color, name }: { rows: { label: string; n: number }[]; color: string; name: string }) {
  return (
    <ChartBox width={520} height={Math.max(100, 30 * rows.length + 30)}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid stroke={INK.grid} horizontal={false} />
        <XAxis type="number" allowDecimals={false} tick={AXIS_TICK} />
        <YAxis type="category" dataKey="label" width={150} tick={CATEGORY_TICK} />
        <Tooltip contentStyle={TOOLTIP} />
        <Bar dataKey="n" name={name} fill={color} isAnimationActive={false} />
      </BarChart>
    </ChartBox>
  );
}
