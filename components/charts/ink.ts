import { INK } from "@/components/timeline/tones";

/** Axis labels and tooltips of the recharts charts, in the theme's colours. */
export const AXIS_TICK = { fontSize: 11, fill: INK.muted };
export const CATEGORY_TICK = { fontSize: 11, fill: INK.text };
export const TOOLTIP = { fontSize: 12, background: INK.surface, borderColor: INK.grid, color: INK.strong };
