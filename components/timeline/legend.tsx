import type { SegmentKind, Timeline } from "@/lib/jobs/timeline";
import { fillFor, kindLabel, KINDS } from "./patterns";
import { TONES, toneLabel, toneOf } from "./tones";

/** What the colours (how each attempt ended) and the patterns (what the job was doing) mean. */
export function Legend({ uid, timeline, tenant = false }: { uid: string; timeline: Timeline; tenant?: boolean }) {
  const outcomes = [...new Set(timeline.lanes.map((l) => toneOf(l.outcome)))];
  const kinds = (Object.keys(KINDS) as SegmentKind[]).filter((k) => timeline.segments.some((s) => s.kind === k));
  return (
    <div className="flex flex-col gap-1.5">
      <ul aria-label={`Colour: how the ${tenant ? "try" : "attempt"} ended`} className="flex flex-wrap items-center gap-x-4 gap-y-1">
        {outcomes.map((tone) => (
          <li key={tone} className="flex items-center gap-1.5">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: TONES[tone].solid }} />
            {toneLabel(tone, tenant)}
          </li>
        ))}
      </ul>
      <ul aria-label="Pattern: what the job was doing" className="flex flex-wrap items-center gap-x-4 gap-y-1">
        {kinds.map((kind) => (
          <li key={kind} className="flex items-center gap-1.5">
            <svg aria-hidden="true" width="22" height="12" className="shrink-0">
              <rect x="0.5" y="0.5" width="21" height="11" rx="2" {...fillFor(uid, kind, "neutral")} />
            </svg>
            {kindLabel(kind, tenant)}
          </li>
        ))}
      </ul>
    </div>
  );
}
