"use client";

import { Bar, BarChart, CartesianGrid, LabelList, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { INK } from "@/components/timeline/tones";
import { duration } from "./format";
import { ChartBox } from "./chart-box";
import { AXIS_TICK, CATEGORY_TICK, TOOLTIP } from "./ink";

type Row = { label: string; p50: number | null; p95: number | null };

/**
 * p50 and p95 of a duration per category (job type), as horizontal bars, each
 * with its value written at its end: a p50 of 40 ms beside a p95 of 5 h is too
 * short to see, so every bar is drawn at least a few pixels long and labelled.
 */
export function PercentileChart({ rows, color, light }: { rows: Row[]; color: string; light: string }) {
  return (
    <ChartBox width={520} height={Math.max(120, 44 * rows.length + 40)}>
      <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 56, bottom: 0, left: 0 }} barGap={1}>
        <CartesianGrid stroke={INK.grid} horizontal={false} />
        <XAxis type="number" tickFormatter={duration} tick={AXIS_TICK} />
        <YAxis type="category" dataKey="label" width={130} tick={CATEGORY_TICK} />
        <Tooltip formatter={(v) => duration(v)} contentStyle={TOOLTIP} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar dataKey="p50" name="p50" fill={light} minPointSize={3} isAnimationActive={false}>
          <LabelList dataKey="p50" position="right" formatter={duration} fontSize={10} fill={INK.muted} />
        </Bar>
        <Bar dataKey="p95" name="p95" fill={color} minPointSize={3} isAnimationActive={false}>
          <LabelList dataKey="p95" position="right" formatter={duration} fontSize={10} fill={INK.muted} />
        </Bar>
      </BarChart>
    </ChartBox>
  );
}
