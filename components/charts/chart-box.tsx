import type { ReactNode } from "react";
import { ResponsiveContainer } from "recharts";

/**
 * A chart as wide as its box and `height` tall. It is drawn on the server at `width` before the
 * browser measures its box; clipped, that first drawing cannot make a phone's page wider than the screen.
 */
export function ChartBox({ width, height, children }: { width: number; height: number; children: ReactNode }) {
  return (
    <ResponsiveContainer className="overflow-hidden" width="100%" height={height} initialDimension={{ width, height }}>
      {children}
    </ResponsiveContainer>
  );
}
