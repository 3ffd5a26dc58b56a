import type { RunOutcome } from "@/lib/fsm/table";
import type { AttemptOutcome } from "@/lib/jobs/timeline";

/** A palette colour as a CSS variable, so the dark theme (app/theme.css) recolours charts too. */
const c = (name: string) => `var(--color-${name})`;

/**
 * Colours per attempt outcome: `solid` for the run itself, `light` behind the patterns of waits;
 * `label` as staff read it, `tenant` in a tenant's words where they differ (no lease, no worker, no
 * machinery). `satisfies` a record keyed by RunOutcome, so a new outcome of lib/fsm/table.ts fails to
 * compile until it has a colour: the timeline, the run records and the overview's throughput chart all
 * read this one map.
 */
export const TONES = {
  succeeded: { solid: c("emerald-600"), light: c("emerald-100"), label: "succeeded" },
  failed: { solid: c("red-600"), light: c("red-100"), label: "failed" },
  lease_expired: { solid: c("orange-600"), light: c("orange-100"), label: "lease expired", tenant: "interrupted" },
  cancelled: { solid: c("slate-500"), light: c("slate-200"), label: "cancelled" },
  abandoned: { solid: c("red-800"), light: c("red-200"), label: "abandoned", tenant: "stopped" },
  released: { solid: c("teal-600"), light: c("teal-100"), label: "released (worker shut down)", tenant: "handed back before it started" },
  open: { solid: c("violet-600"), light: c("violet-100"), label: "in progress" },
  waiting: { solid: c("sky-600"), light: c("sky-100"), label: "before the first attempt", tenant: "before the first try" },
  /** The legend's pattern swatches: no outcome, so no colour. */
  neutral: { solid: c("neutral-600"), light: c("neutral-100"), label: "" },
} as const satisfies Record<RunOutcome | "open" | "waiting" | "neutral", ToneSpec>;
type ToneSpec = { solid: string; light: string; label: string; tenant?: string };
export type Tone = keyof typeof TONES;
export const toneOf = (o: AttemptOutcome): Tone => o ?? "waiting";

/** The chart's own ink: grid, axis text, labels and the surface, in the theme's neutrals. */
export const INK = {
  surface: c("white"),
  stripe: c("neutral-50"),
  grid: c("neutral-200"),
  rule: c("neutral-300"),
  muted: c("neutral-600"),
  text: c("neutral-700"),
  strong: c("neutral-900"),
} as const;

/** An outcome's label for staff, or a tenant. */
export function toneLabel(tone: Tone, tenant = false): string {
  const t: ToneSpec = TONES[tone];
  return (tenant && t.tenant) || t.label;
}

/** An attempt's outcome as the chart colours it, for tables beside the chart. */
export function OutcomeLabel({ outcome, tenant = false }: { outcome: AttemptOutcome; tenant?: boolean }) {
  const tone = TONES[toneOf(outcome)];
  return (
    <span className="inline-flex items-center gap-1.5 font-medium whitespace-nowrap" style={{ color: tone.solid }}>
      <span aria-hidden="true" className="size-2 rounded-full" style={{ background: tone.solid }} />
      {toneLabel(toneOf(outcome), tenant)}
    </span>
  );
}
