"use client";

import { useEffect, useId, useRef, useState } from "react";
import { formatUtc, formatUtcTime } from "@/components/relative-time";
import type { RunOutcome } from "@/lib/fsm/table";
import { formatDuration, type AttemptOutcome, type Lane, type Segment, type SegmentKind, type Timeline } from "@/lib/jobs/timeline";

/**
 * Colours per attempt outcome: `solid` for the run itself, `light` behind the patterns of waits.
 * `satisfies` a record keyed by RunOutcome, so a new outcome fails to compile until it has a colour.
 */
const TONES = {
  succeeded: { solid: "#059669", light: "#d1fae5", label: "succeeded" },
  failed: { solid: "#dc2626", light: "#fee2e2", label: "failed" },
  lease_expired: { solid: "#ea580c", light: "#ffedd5", label: "lease expired" },
  cancelled: { solid: "#64748b", light: "#e2e8f0", label: "cancelled" },
  abandoned: { solid: "#9f1239", light: "#ffe4e6", label: "abandoned" },
  released: { solid: "#0d9488", light: "#ccfbf1", label: "released (worker shut down)" },
  open: { solid: "#7c3aed", light: "#ede9fe", label: "in progress" },
  waiting: { solid: "#0284c7", light: "#e0f2fe", label: "before the first attempt" },
  /** The legend's pattern swatches: no outcome, so no colour. */
  neutral: { solid: "#525252", light: "#f5f5f5", label: "" },
} as const satisfies Record<RunOutcome | "open" | "waiting" | "neutral", { solid: string; light: string; label: string }>;
type Tone = keyof typeof TONES;
const toneOf = (o: AttemptOutcome): Tone => o ?? "waiting";

/** An attempt's outcome as the chart colours it, for tables beside the chart. */
export function OutcomeLabel({ outcome }: { outcome: AttemptOutcome }) {
  const tone = TONES[toneOf(outcome)];
  return (
    <span className="inline-flex items-center gap-1.5 font-medium whitespace-nowrap" style={{ color: tone.solid }}>
      <span aria-hidden="true" className="size-2 rounded-full" style={{ background: tone.solid }} />
      {tone.label}
    </span>
  );
}

/** How each kind of segment is drawn, so kinds stay apart within one outcome colour. */
const KINDS: Record<SegmentKind, { label: string; pattern: "solid" | "faded" | "hatch" | "dots" | "bars" | "stripes" | "outline" }> = {
  queue_wait: { label: "queue wait", pattern: "hatch" },
  claimed: { label: "claimed", pattern: "faded" },
  running: { label: "running", pattern: "solid" },
  paused: { label: "paused", pattern: "bars" },
  cancelling: { label: "cancelling", pattern: "stripes" },
  retry_wait: { label: "retry wait", pattern: "dots" },
  dead: { label: "dead until replayed", pattern: "outline" },
};

const LABEL_W = 176;
const PAD_R = 20;
const AXIS_H = 30;
const LANE_H = 40;
const BAR_H = 22;
const MIN_BAR_W = 2;
/** About how wide a character of the 11px labels is, to decide whether a label fits. */
const CHAR_W = 6.4;

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [
  ...[1, 2, 5, 10, 15, 30].map((n) => n * SECOND),
  ...[1, 2, 5, 10, 15, 30].map((n) => n * MINUTE),
  ...[1, 2, 3, 6, 12].map((n) => n * HOUR),
  ...[1, 2, 7, 14, 30].map((n) => n * DAY),
];
/** A stretch dead for longer than this share of the whole is drawn short, behind an axis break. */
const BREAK_SHARE = 0.2;
const BREAK_W = 64;
const MIN_TICK_GAP = 56;

type Piece = { from: number; to: number; x0: number; x1: number; isBreak: boolean };
type Scale = { x: (t: number) => number; pieces: Piece[]; ticks: { at: number; label: string }[] };

/**
 * Time to pixels, linear except across long dead stretches (a dead job
 * replayed hours later): those are squeezed to BREAK_W so the attempts on
 * either side stay readable. Ticks fall only on the linear pieces.
 */
function makeScale(t: Timeline, x0: number, width: number): Scale {
  const span = Math.max(t.end - t.start, SECOND);
  const gaps = t.segments.filter((s) => s.kind === "dead" && s.durationMs > span * BREAK_SHARE);
  const linearMs = span - gaps.reduce((sum, g) => sum + g.durationMs, 0);
  const perMs = (width - gaps.length * BREAK_W) / Math.max(linearMs, 1);
  const pieces: Piece[] = [];
  let at = t.start;
  let x = x0;
  for (const stop of [...gaps, null]) {
    const to = stop ? stop.start : t.start + span;
    pieces.push({ from: at, to, x0: x, x1: x + (to - at) * perMs, isBreak: false });
    x += (to - at) * perMs;
    if (stop) {
      pieces.push({ from: stop.start, to: stop.end, x0: x, x1: x + BREAK_W, isBreak: true });
      x += BREAK_W;
      at = stop.end;
    }
  }
  const scale = (v: number) => {
    const p = pieces.find((q) => v <= q.to) ?? pieces.at(-1)!;
    return p.x0 + ((Math.min(Math.max(v, p.from), p.to) - p.from) / Math.max(p.to - p.from, 1)) * (p.x1 - p.x0);
  };
  const step = STEPS.find((s) => s * perMs >= MIN_TICK_GAP * 1.6) ?? STEPS.at(-1)!;
  const ticks: { at: number; label: string }[] = [];
  let lastX = -Infinity;
  let lastDay = "";
  for (const p of pieces.filter((q) => !q.isBreak)) {
    for (let v = Math.ceil(p.from / step) * step; v <= p.to; v += step) {
      if (scale(v) - lastX < MIN_TICK_GAP) continue;
      const d = new Date(v);
      const day = d.toISOString().slice(5, 10);
      const time = step >= DAY ? "" : step >= MINUTE ? formatUtcTime(d).slice(0, 5) : formatUtcTime(d);
      // The date is written where it changes, so a long timeline never leaves the reader guessing which day.
      const spansDays = new Date(t.start).getUTCDate() !== new Date(t.start + span).getUTCDate();
      const label = step >= DAY ? day : day !== lastDay && spansDays ? `${day} ${time}` : time;
      ticks.push({ at: v, label });
      lastX = scale(v);
      lastDay = day;
    }
  }
  return { x: scale, pieces, ticks };
}

function laneTitle(lane: Lane) {
  return lane.attempt === 0 ? "Queued" : `Attempt ${lane.attempt}`;
}

function segmentTitle(s: Segment) {
  const who = s.attempt === 0 ? "Before the first attempt" : `Attempt ${s.attempt}${s.worker ? ` (${s.worker})` : ""}`;
  const until = s.isOngoing ? "now" : formatUtcTime(new Date(s.end));
  const outcome = s.outcome ? `; the attempt ${s.outcome === "open" ? "is in progress" : `ended ${TONES[s.outcome].label}`}` : "";
  return `${who}: ${KINDS[s.kind].label} for ${formatDuration(s.durationMs)}, ${formatUtcTime(new Date(s.start))} → ${until} UTC${outcome}`;
}

/** A fill for a segment of `kind` in `tone`: a colour or one of the patterns in <Patterns>. */
function fillFor(uid: string, kind: SegmentKind, tone: Tone) {
  const p = KINDS[kind].pattern;
  const t = TONES[tone];
  if (p === "solid") return { fill: t.solid };
  if (p === "faded") return { fill: t.solid, fillOpacity: 0.45 };
  if (p === "outline") return { fill: t.light, stroke: t.solid, strokeDasharray: "3 2" };
  return { fill: `url(#${uid}-${p}-${tone})`, stroke: t.solid, strokeOpacity: 0.5 };
}

function Patterns({ uid, tones }: { uid: string; tones: Tone[] }) {
  return (
    <defs>
      {tones.map((tone) => {
        const { solid, light } = TONES[tone];
        return (
          <g key={tone}>
            <pattern id={`${uid}-hatch-${tone}`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" fill={light} />
              <line x1="0" y1="0" x2="0" y2="6" stroke={solid} strokeWidth="2" strokeOpacity="0.45" />
            </pattern>
            <pattern id={`${uid}-dots-${tone}`} width="5" height="5" patternUnits="userSpaceOnUse">
              <rect width="5" height="5" fill={light} />
              <circle cx="2.5" cy="2.5" r="1.1" fill={solid} fillOpacity="0.7" />
            </pattern>
            <pattern id={`${uid}-bars-${tone}`} width="6" height="6" patternUnits="userSpaceOnUse">
              <rect width="6" height="6" fill={light} />
              <rect width="2.5" height="6" fill={solid} fillOpacity="0.5" />
            </pattern>
            <pattern id={`${uid}-stripes-${tone}`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
              <rect width="6" height="6" fill={solid} />
              <line x1="0" y1="0" x2="0" y2="6" stroke="#fff" strokeWidth="2" strokeOpacity="0.45" />
            </pattern>
          </g>
        );
      })}
    </defs>
  );
}

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
export function TimelineChart({ timeline, caption }: { timeline: Timeline; caption?: string }) {
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, "");
  // The first render (on the server) guesses the width of the page at 1280px; the browser then measures.
  const [ref, width] = useWidth(1060);
  const { start, end, lanes } = timeline;
  const plotR = width - PAD_R;
  const { x, pieces, ticks } = makeScale(timeline, LABEL_W, plotR - LABEL_W);
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
          aria-label={caption ?? "Timeline of every attempt"}
        >
          <Patterns uid={uid} tones={tones} />
          {lanes.map((lane, i) => (
            <rect key={lane.attempt} x="0" y={AXIS_H + i * LANE_H} width={width} height={LANE_H} fill={i % 2 ? "#fafafa" : "#fff"} />
          ))}
          <g aria-hidden="true">
            {pieces
              .filter((p) => p.isBreak)
              .map((p) => (
                <g key={p.from}>
                  <rect x={p.x0} y={AXIS_H - 6} width={p.x1 - p.x0} height={height - AXIS_H - 2} fill="#f5f5f5" />
                  <rect x={p.x0 + 4} y={AXIS_H - 14} width={p.x1 - p.x0 - 8} height="14" fill="#fff" />
                  <path
                    d={`M${p.x0 + 6},${AXIS_H - 2} l6,-8 M${p.x1 - 12},${AXIS_H - 2} l6,-8`}
                    stroke="#a3a3a3"
                    strokeWidth="1.5"
                  />
                </g>
              ))}
            {ticks.map((tick) => (
              <g key={tick.at}>
                <line x1={x(tick.at)} x2={x(tick.at)} y1={AXIS_H - 6} y2={height - 8} stroke="#e5e5e5" />
                <text x={x(tick.at)} y={AXIS_H - 11} textAnchor="middle" fontSize="11" fill="#737373">
                  {tick.label}
                </text>
              </g>
            ))}
            {pieces
              .filter((p) => !p.isBreak)
              .map((p) => (
                <line key={p.from} x1={p.x0} x2={p.x1} y1={AXIS_H - 6} y2={AXIS_H - 6} stroke="#d4d4d4" />
              ))}
          </g>
          <g role="list" aria-label="Attempts">
            {lanes.map((lane, i) => (
              <LaneRow key={lane.attempt} lane={lane} y={AXIS_H + i * LANE_H} x={x} right={plotR} uid={uid} />
            ))}
          </g>
          {timeline.isOngoing && (
            <g aria-hidden="true">
              <line x1={x(end)} x2={x(end)} y1={AXIS_H - 6} y2={height - 8} stroke="#7c3aed" strokeDasharray="2 3" />
              <text x={x(end)} y={height - 1} textAnchor="end" fontSize="10" fill="#7c3aed">
                now
              </text>
            </g>
          )}
        </svg>
      </div>
      <figcaption className="flex flex-wrap items-start justify-between gap-x-6 gap-y-2 text-xs text-neutral-500">
        <span className="tabular-nums">
          {formatUtc(new Date(start))} → {timeline.isOngoing ? "now" : formatUtc(new Date(end))} ({formatDuration(end - start)})
          {timeline.isTruncated && " · the oldest events are not shown"}
        </span>
        <Legend uid={uid} timeline={timeline} />
      </figcaption>
    </figure>
  );
}

/** Whether a segment is wide enough to carry its duration inside. */
const fitsInside = (s: Segment, x: (t: number) => number) =>
  x(s.end) - x(s.start) >= formatDuration(s.durationMs).length * CHAR_W + 10;

/**
 * The durations too narrow to write inside their segments, said beside the
 * lane instead: after its last segment (the staircase leaves that space free)
 * or, failing that, before its first.
 */
function laneNote(lane: Lane, x: (t: number) => number, right: number): { x: number; anchor: "start" | "end"; text: string } | null {
  const text = lane.segments
    .filter((s) => !fitsInside(s, x) && s.durationMs >= SECOND && s.kind !== "claimed")
    .map((s) => `${KINDS[s.kind].label} ${formatDuration(s.durationMs)}`)
    .join(" · ");
  const first = lane.segments[0];
  const last = lane.segments.at(-1);
  if (!text || !first || !last) return null;
  const w = text.length * CHAR_W;
  const after = Math.max(x(last.end), x(last.start) + MIN_BAR_W) + 6;
  if (after + w <= right) return { x: after, anchor: "start", text };
  const before = x(first.start) - 6;
  if (before - w >= LABEL_W) return { x: before, anchor: "end", text };
  return null;
}

function LaneRow({ lane, y, x, right, uid }: { lane: Lane; y: number; x: (t: number) => number; right: number; uid: string }) {
  const tone = TONES[toneOf(lane.outcome)];
  const barY = y + (LANE_H - BAR_H) / 2;
  const who = lane.attempt === 0 ? "" : `, worker ${lane.worker ?? "unknown"}`;
  const note = laneNote(lane, x, right);
  return (
    <g role="listitem" aria-label={`${laneTitle(lane)}${who}: ${tone.label}`}>
      <text x="12" y={y + 17} fontSize="12" fontWeight="600" fill="#262626">
        {laneTitle(lane)}
        {lane.worker && (
          <tspan fontWeight="400" fill="#525252" fontFamily="var(--font-mono)" dx="6">
            {lane.worker}
          </tspan>
        )}
      </text>
      <circle cx="16" cy={y + 29} r="3.5" fill={tone.solid} />
      <text x="24" y={y + 32.5} fontSize="11" fill={tone.solid} fontWeight="500">
        {tone.label}
      </text>
      {lane.segments.map((s) => (
        <SegmentBar key={`${s.start}-${s.kind}`} segment={s} x={x} y={barY} uid={uid} />
      ))}
      {note && (
        <text x={note.x} y={barY + BAR_H / 2 + 4} textAnchor={note.anchor} fontSize="11" fill="#737373" aria-hidden="true">
          {note.text}
        </text>
      )}
    </g>
  );
}

function SegmentBar({ segment: s, x, y, uid }: { segment: Segment; x: (t: number) => number; y: number; uid: string }) {
  const x0 = x(s.start);
  const w = Math.max(MIN_BAR_W, x(s.end) - x0);
  const label = formatDuration(s.durationMs);
  const fitsLabel = fitsInside(s, x);
  const isSolid = KINDS[s.kind].pattern === "solid";
  return (
    <g>
      <title>{segmentTitle(s)}</title>
      <rect x={x0} y={y} width={w} height={BAR_H} rx="3" {...fillFor(uid, s.kind, toneOf(s.outcome))} />
      {s.isOngoing && <rect x={x0 + w - 2} y={y} width="2" height={BAR_H} fill="#7c3aed" className="motion-safe:animate-pulse" />}
      {fitsLabel && (
        <text
          x={x0 + w / 2}
          y={y + BAR_H / 2 + 4}
          textAnchor="middle"
          fontSize="11"
          fontWeight="600"
          fill={isSolid ? "#fff" : "#262626"}
          stroke={isSolid ? "none" : "#fff"}
          strokeWidth="3"
          paintOrder="stroke"
          aria-hidden="true"
        >
          {label}
        </text>
      )}
    </g>
  );
}

function Legend({ uid, timeline }: { uid: string; timeline: Timeline }) {
  const outcomes = [...new Set(timeline.lanes.map((l) => toneOf(l.outcome)))];
  const kinds = (Object.keys(KINDS) as SegmentKind[]).filter((k) => timeline.segments.some((s) => s.kind === k));
  return (
    <div className="flex flex-col gap-1.5">
      <ul aria-label="Colour: how the attempt ended" className="flex flex-wrap items-center gap-x-4 gap-y-1">
        {outcomes.map((tone) => (
          <li key={tone} className="flex items-center gap-1.5">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: TONES[tone].solid }} />
            {TONES[tone].label}
          </li>
        ))}
      </ul>
      <ul aria-label="Pattern: what the job was doing" className="flex flex-wrap items-center gap-x-4 gap-y-1">
        {kinds.map((kind) => (
          <li key={kind} className="flex items-center gap-1.5">
            <svg aria-hidden="true" width="22" height="12" className="shrink-0">
              <rect x="0.5" y="0.5" width="21" height="11" rx="2" {...fillFor(uid, kind, "neutral")} />
            </svg>
            {KINDS[kind].label}
          </li>
        ))}
      </ul>
    </div>
  );
}
