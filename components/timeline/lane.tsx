import { useTimeZone } from "@/components/time-zone";
import { formatClock, formatDuration, zoneLabel } from "@/lib/time-format";
import type { Lane, Segment } from "@/lib/jobs/timeline";
import { fillFor, KINDS, kindLabel } from "./patterns";
import { SECOND } from "./scale";
import { INK, TONES, toneLabel, toneOf } from "./tones";

export const LABEL_W = 176;
export const LANE_H = 40;
const BAR_H = 22;
const MIN_BAR_W = 2;
/** About how wide a character of the 11px labels is, to decide whether a label fits. */
const CHAR_W = 6.4;

function laneTitle(lane: Lane, tenant: boolean) {
  return lane.attempt === 0 ? "Queued" : `${tenant ? "Try" : "Attempt"} ${lane.attempt}`;
}

function segmentTitle(s: Segment, tz: string, tenant: boolean) {
  const word = tenant ? "try" : "attempt";
  const who = s.attempt === 0 ? `Before the first ${word}` : `${tenant ? "Try" : "Attempt"} ${s.attempt}${s.worker ? ` (${s.worker})` : ""}`;
  const until = s.isOngoing ? "now" : formatClock(new Date(s.end), tz);
  const outcome = s.outcome ? `; the ${word} ${s.outcome === "open" ? "is in progress" : `ended ${toneLabel(s.outcome, tenant)}`}` : "";
  return `${who}: ${kindLabel(s.kind, tenant)} for ${formatDuration(s.durationMs)}, ${formatClock(new Date(s.start), tz)} → ${until} ${zoneLabel(new Date(s.start), tz)}${outcome}`;
}

/** Whether a segment is wide enough to carry its duration inside. */
const fitsInside = (s: Segment, x: (t: number) => number) => x(s.end) - x(s.start) >= formatDuration(s.durationMs).length * CHAR_W + 10;

/**
 * The durations too narrow to write inside their segments, said beside the
 * lane instead: after its last segment (the staircase leaves that space free)
 * or, failing that, before its first.
 */
function laneNote(lane: Lane, x: (t: number) => number, right: number, tenant: boolean): { x: number; anchor: "start" | "end"; text: string } | null {
  const text = lane.segments
    .filter((s) => !fitsInside(s, x) && s.durationMs >= SECOND && s.kind !== "claimed")
    .map((s) => `${kindLabel(s.kind, tenant)} ${formatDuration(s.durationMs)}`)
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

export function LaneRow({
  lane,
  y,
  x,
  right,
  uid,
  tenant = false,
}: {
  lane: Lane;
  y: number;
  x: (t: number) => number;
  right: number;
  uid: string;
  tenant?: boolean;
}) {
  const tone = TONES[toneOf(lane.outcome)];
  const label = toneLabel(toneOf(lane.outcome), tenant);
  const barY = y + (LANE_H - BAR_H) / 2;
  // A tenant's copy has no worker ids (lib/jobs/redact.ts): no worker named then.
  const who = lane.attempt === 0 || lane.worker === "" ? "" : `, worker ${lane.worker ?? "unknown"}`;
  const note = laneNote(lane, x, right, tenant);
  return (
    <g role="listitem" aria-label={`${laneTitle(lane, tenant)}${who}: ${label}`}>
      <text x="12" y={y + 17} fontSize="12" fontWeight="600" fill={INK.strong}>
        {laneTitle(lane, tenant)}
        {lane.worker && (
          <tspan fontWeight="400" fill={INK.muted} fontFamily="var(--font-mono)" dx="6">
            {lane.worker}
          </tspan>
        )}
      </text>
      <circle cx="16" cy={y + 29} r="3.5" fill={tone.solid} />
      <text x="24" y={y + 32.5} fontSize="11" fill={tone.solid} fontWeight="500">
        {label}
      </text>
      {lane.segments.map((s) => (
        <SegmentBar key={`${s.start}-${s.kind}`} segment={s} x={x} y={barY} uid={uid} tenant={tenant} />
      ))}
      {note && (
        <text x={note.x} y={barY + BAR_H / 2 + 4} textAnchor={note.anchor} fontSize="11" fill={INK.muted} aria-hidden="true">
          {note.text}
        </text>
      )}
    </g>
  );
}

function SegmentBar({ segment: s, x, y, uid, tenant }: { segment: Segment; x: (t: number) => number; y: number; uid: string; tenant: boolean }) {
  const x0 = x(s.start);
  const w = Math.max(MIN_BAR_W, x(s.end) - x0);
  const label = formatDuration(s.durationMs);
  const fitsLabel = fitsInside(s, x);
  const isSolid = KINDS[s.kind].pattern === "solid";
  const tz = useTimeZone();
  return (
    <g>
      <title>{segmentTitle(s, tz, tenant)}</title>
      <rect x={x0} y={y} width={w} height={BAR_H} rx="3" {...fillFor(uid, s.kind, toneOf(s.outcome))} />
      {s.isOngoing && <rect x={x0 + w - 2} y={y} width="2" height={BAR_H} fill={TONES.open.solid} className="motion-safe:animate-pulse" />}
      {fitsLabel && (
        <text
          x={x0 + w / 2}
          y={y + BAR_H / 2 + 4}
          textAnchor="middle"
          fontSize="11"
          fontWeight="600"
          fill={isSolid ? INK.surface : INK.strong}
          stroke={isSolid ? "none" : INK.surface}
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
