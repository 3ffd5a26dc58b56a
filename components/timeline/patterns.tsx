import type { SegmentKind } from "@/lib/jobs/timeline";
import { INK, TONES, type Tone } from "./tones";

type Pattern = "solid" | "faded" | "hatch" | "dots" | "bars" | "stripes" | "outline";

/** How each kind of segment is named (`tenant`: in a tenant's words, where they differ) and drawn, so kinds stay apart within one outcome colour. */
export const KINDS: Record<SegmentKind, { label: string; tenant?: string; pattern: Pattern }> = {
  queue_wait: { label: "queue wait", tenant: "waiting its turn", pattern: "hatch" },
  claimed: { label: "claimed", tenant: "starting", pattern: "faded" },
  running: { label: "running", pattern: "solid" },
  paused: { label: "paused", pattern: "bars" },
  cancelling: { label: "cancelling", pattern: "stripes" },
  retry_wait: { label: "retry wait", tenant: "waiting to retry", pattern: "dots" },
  dead: { label: "dead until replayed", tenant: "stopped until restarted", pattern: "outline" },
};

/** A segment kind's label for staff, or a tenant. */
export const kindLabel = (kind: SegmentKind, tenant = false) => (tenant && KINDS[kind].tenant) || KINDS[kind].label;

/** A fill for a segment of `kind` in `tone`: a colour or one of the patterns in <Patterns>. */
export function fillFor(uid: string, kind: SegmentKind, tone: Tone) {
  const p = KINDS[kind].pattern;
  const t = TONES[tone];
  if (p === "solid") return { fill: t.solid };
  if (p === "faded") return { fill: t.solid, fillOpacity: 0.45 };
  if (p === "outline") return { fill: t.light, stroke: t.solid, strokeDasharray: "3 2" };
  return { fill: `url(#${uid}-${p}-${tone})`, stroke: t.solid, strokeOpacity: 0.5 };
}

export function Patterns({ uid, tones }: { uid: string; tones: Tone[] }) {
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
              <line x1="0" y1="0" x2="0" y2="6" stroke={INK.surface} strokeWidth="2" strokeOpacity="0.45" />
            </pattern>
          </g>
        );
      })}
    </defs>
  );
}
