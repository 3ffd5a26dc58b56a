import { formatClock, formatDay, offsetMs } from "@/lib/time-format";
import type { Timeline } from "@/lib/jobs/timeline";

export const SECOND = 1_000;
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
 * either side stay readable. Ticks fall only on the linear pieces, on round times of `tz`'s
 * wall clock, labelled in it (the chart's caption names the zone).
 */
export function makeScale(t: Timeline, x0: number, width: number, tz = "UTC"): Scale {
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
  const spansDays = formatDay(new Date(t.start), tz) !== formatDay(new Date(t.start + span), tz);
  for (const p of pieces.filter((q) => !q.isBreak)) {
    // Round in the wall clock of `tz` (an offset of 5:30 would put ticks on odd minutes otherwise).
    const off = offsetMs(p.from, tz);
    for (let v = Math.ceil((p.from + off) / step) * step - off; v <= p.to; v += step) {
      if (scale(v) - lastX < MIN_TICK_GAP) continue;
      const d = new Date(v);
      const day = formatDay(d, tz).slice(5);
      const time = step >= DAY ? "" : step >= MINUTE ? formatClock(d, tz).slice(0, 5) : formatClock(d, tz);
      // The date is written where it changes, so a long timeline never leaves the reader guessing which day.
      const label = step >= DAY ? day : day !== lastDay && spansDays ? `${day} ${time}` : time;
      ticks.push({ at: v, label });
      lastX = scale(v);
      lastDay = day;
    }
  }
  return { x: scale, pieces, ticks };
}
