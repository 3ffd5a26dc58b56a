"use client";

import { useEffect, useId, useRef, useState } from "react";
import { LocalTime, useTimeZone } from "@/components/time-zone";
import type { Timeline } from "@/lib/jobs/timeline";
import { formatDuration } from "@/lib/time-format";
import { LABEL_W, LANE_H, LaneRow } from "./lane";
import { Legend } from "./legend";
import { Patterns } from "./patterns";
import { makeScale } from "./scale";
import { INK, TONES, toneOf, type Tone } from "./tones";

// The chart in named pieces: tones.tsx (outcome colours), scale.ts (time to pixels, axis breaks and
// ticks), patterns.tsx (what the job was doing), lane.tsx (one attempt's row), legend.tsx.

const PAD_R = 20;
const AXIS_H = 30;

/** The chart's width follows its container, so text is never scaled. */
function useWidth(initial: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.max(480, Math.floor(entry.contentRect.width))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/**
 * Every attempt of a job on one time axis: a lane per attempt (and one for the
 * wait before the first), segments coloured by how the attempt ended and
 * patterned by what the job was doing. Built from `buildTimeline`.
 */
export function TimelineChart({ timeline, caption, tenant = false }: { timeline: Timeline; caption?: string; tenant?: boolean }) {
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, "");
  // The first render (on the server) guesses the width of the page at 1280px; the browser then measures.
  const [ref, width] = useWidth(1060);
  const tz = useTimeZone();
  const { start, end, lanes } = timeline;
  const plotR = width - PAD_R;
  const { x, pieces, ticks } = makeScale(timeline, LABEL_W, plotR - LABEL_W, tz);
  const height = AXIS_H + lanes.length * LANE_H + 8;
  const tones: Tone[] = [...new Set(lanes.map((l) => toneOf(l.outcome))), "neutral"];

  return (
    <figure className="space-y-3">
      <div ref={ref} className="w-full overflow-hidden">
        <svg
          width={width}
          height={height}
          viewBox={`0 0 ${width} ${height}`}
          className="block font-sans text-neutral-700"
          style={{ fontVariantNumeric: "tabular-nums" }}
          role="group"
          aria-label={caption ?? `Timeline of every ${tenant ? "try" : "attempt"}`}
        >
          <Patterns uid={uid} tones={tones} />
          {lanes.map((lane, i) => (
            <rect key={lane.attempt} x="0" y={AXIS_H + i * LANE_H} width={width} height={LANE_H} fill={i % 2 ? INK.stripe : INK.surface} />
          ))}
          <g aria-hidden="true">
            {pieces
              .filter((p) => p.isBreak)
              .map((p) => (
                <g key={p.from}>
                  <rect x={p.x0} y={AXIS_H - 6} width={p.x1 - p.x0} height={height - AXIS_H - 2} fill={INK.stripe} />
                  <rect x={p.x0 + 4} y={AXIS_H - 14} width={p.x1 - p.x0 - 8} height="14" fill={INK.surface} />
                  <path d={`M${p.x0 + 6},${AXIS_H - 2} l6,-8 M${p.x1 - 12},${AXIS_H - 2} l6,-8`} stroke={INK.muted} strokeWidth="1.5" />
                </g>
              ))}
            {ticks.map((tick) => (
              <g key={tick.at}>
                <line x1={x(tick.at)} x2={x(tick.at)} y1={AXIS_H - 6} y2={height - 8} stroke={INK.grid} />
                <text x={x(tick.at)} y={AXIS_H - 11} textAnchor="middle" fontSize="11" fill={INK.muted}>
                  {tick.label}
                </text>
              </g>
            ))}
            {pieces
              .filter((p) => !p.isBreak)
              .map((p) => (
                <line key={p.from} x1={p.x0} x2={p.x1} y1={AXIS_H - 6} y2={AXIS_H - 6} stroke={INK.rule} />
              ))}
          </g>
          <g role="list" aria-label="Attempts">
            {lanes.map((lane, i) => (
              <LaneRow key={lane.attempt} lane={lane} y={AXIS_H + i * LANE_H} x={x} right={plotR} uid={uid} tenant={tenant} />
            ))}
          </g>
          {timeline.isOngoing && (
            <g aria-hidden="true">
              <line x1={x(end)} x2={x(end)} y1={AXIS_H - 6} y2={height - 8} stroke={TONES.open.solid} strokeDasharray="2 3" />
              <text x={x(end)} y={height - 1} textAnchor="end" fontSize="10" fill={TONES.open.solid}>
                now
              </text>
            </g>
          )}
        </svg>
      </div>
      <figcaption className="flex flex-wrap items-start justify-between gap-x-6 gap-y-2 text-xs text-neutral-600">
        <span className="tabular-nums">
          <LocalTime at={new Date(start)} /> → {timeline.isOngoing ? "now" : <LocalTime at={new Date(end)} />} ({formatDuration(end - start)})
          {timeline.isTruncated && " · the oldest events are not shown"}
        </span>
        <Legend uid={uid} timeline={timeline} tenant={tenant} />
      </figcaption>
    </figure>
  );
}
