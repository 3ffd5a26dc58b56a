import type { EventRecord, RunRecord } from "../jobs/queries";
import { buildTimeline, formatDuration, type Segment } from "../jobs/timeline";
import type { JobRow } from "../jobs/types";

/**
 * "Why was this slow": where a job's time went, from submit to its end (or
 * now), in phases a person names, with a sentence that names the dominant
 * cause. Pure: built on the same timeline as the job page's chart
 * (lib/jobs/timeline.ts), so the bar, the chart and the words always agree.
 */
export const PHASES = ["scheduled", "queue_wait", "claimed", "running", "paused", "retry_backoff", "lost_to_lease", "dead"] as const;
export type Phase = (typeof PHASES)[number];

export const PHASE_LABELS: Record<Phase, string> = {
  scheduled: "scheduled delay",
  queue_wait: "waiting in the queue",
  claimed: "claimed, not started",
  running: "running",
  paused: "paused",
  retry_backoff: "retry backoff",
  lost_to_lease: "lost to expired leases",
  dead: "dead until replayed",
};

export type SlownessJob = Pick<JobRow, "type" | "queue" | "state" | "createdAt" | "notBefore">;
export type SlownessRun = Pick<RunRecord, "attempt" | "workerId" | "claimedAt" | "startedAt" | "finishedAt" | "outcome" | "errorClass">;
export type SlownessEvent = Pick<EventRecord, "event" | "toState" | "attempt" | "stateVersion" | "at" | "actorKind" | "actorId">;

/** One attempt's share: the queue wait before its claim, then its own time, and the backoff after it. */
export type AttemptBreakdown = {
  attempt: number;
  worker: string | null;
  outcome: SlownessRun["outcome"] | "open";
  errorClass: string | null;
  queueWaitMs: number;
  claimedMs: number;
  runningMs: number;
  pausedMs: number;
  /** Claimed + running time of an attempt whose lease expired: thrown away. */
  lostMs: number;
  backoffMs: number;
};

/** p50 / p95 per phase (and total) for comparable jobs, and how many jobs they were taken from. */
export type Baseline = {
  /** Who the jobs were: "export.tenant_data jobs" or "acme's export.tenant_data jobs". */
  label: string;
  n: number;
  phases: Partial<Record<Phase | "total", { p50: number; p95: number }>>;
};

export type Unusual = { phase: Phase | "total"; ms: number; p50: number; p95: number; baseline: string };

export type SlownessReport = {
  totalMs: number;
  isOngoing: boolean;
  /** Only the newest events were loaded: the earliest phases may be missing. */
  isTruncated: boolean;
  phases: Record<Phase, number>;
  /** The largest phase, or null while no time has passed. */
  dominant: Phase | null;
  attempts: AttemptBreakdown[];
  /** Jobs of its queue ahead of it when it was submitted, if known. */
  aheadAtSubmit: number | null;
  unusual: Unusual[];
  summary: string;
};

export type SlownessContext = {
  now: number;
  /** How many jobs of its queue were waiting ahead of it at submit (lib/insight/baseline.ts). */
  aheadAtSubmit?: number | null;
  baselines?: readonly Baseline[];
};

/** Below this many comparable jobs, percentiles say little: no comparison is made. */
export const MIN_BASELINE_JOBS = 20;
/** A phase shorter than this is never called unusual. */
const UNUSUAL_FLOOR_MS = 1_000;
/** Events that set not_before again, after which the row's not_before no longer says when the submit asked to run. */
const RESCHEDULING = new Set(["fail", "retry", "replay", "release"]);

export function analyzeSlowness(
  job: SlownessJob,
  runs: readonly SlownessRun[],
  events: readonly SlownessEvent[],
  ctx: SlownessContext,
): SlownessReport {
  const timeline = buildTimeline(job, runs, events, ctx.now);
  const runOf = new Map(runs.map((r) => [r.attempt, r]));
  const phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const attempts = new Map<number, AttemptBreakdown>();
  const attemptRow = (n: number): AttemptBreakdown | null => {
    if (n < 1) return null;
    let a = attempts.get(n);
    if (!a) {
      const run = runOf.get(n);
      a = {
        attempt: n,
        worker: run?.workerId ?? null,
        outcome: run ? (run.outcome ?? "open") : "open",
        errorClass: run?.errorClass ?? null,
        queueWaitMs: 0,
        claimedMs: 0,
        runningMs: 0,
        pausedMs: 0,
        lostMs: 0,
        backoffMs: 0,
      };
      attempts.set(n, a);
    }
    return a;
  };
  for (const r of runs) attemptRow(r.attempt);

  // The submit's not_before is still on the row unless something rescheduled the job since.
  const scheduledUntil = events.some((e) => RESCHEDULING.has(e.event)) ? null : job.notBefore.getTime();

  for (const s of timeline.segments) {
    const lost = s.outcome === "lease_expired" && (s.kind === "claimed" || s.kind === "running" || s.kind === "cancelling");
    const own = attemptRow(s.attempt);
    switch (s.kind) {
      case "queue_wait": {
        const scheduled = s.attempt === 0 && s.startEvent === "submit" && scheduledUntil !== null ? clamp(scheduledUntil - s.start, 0, s.durationMs) : 0;
        phases.scheduled += scheduled;
        phases.queue_wait += s.durationMs - scheduled;
        // Queue wait belongs to the attempt that ends it: the next claim.
        const next = attemptRow(s.attempt + 1);
        if (next) next.queueWaitMs += s.durationMs - scheduled;
        break;
      }
      case "claimed":
      case "running":
      case "cancelling":
        if (lost) phases.lost_to_lease += s.durationMs;
        else phases[s.kind === "claimed" ? "claimed" : "running"] += s.durationMs;
        if (own) {
          if (lost) own.lostMs += s.durationMs;
          else if (s.kind === "claimed") own.claimedMs += s.durationMs;
          else own.runningMs += s.durationMs;
        }
        break;
      case "paused":
        phases.paused += s.durationMs;
        if (own) own.pausedMs += s.durationMs;
        break;
      case "retry_wait":
        phases.retry_backoff += s.durationMs;
        if (own) own.backoffMs += s.durationMs;
        break;
      case "dead":
        phases.dead += s.durationMs;
        break;
    }
  }

  const totalMs = PHASES.reduce((sum, p) => sum + phases[p], 0);
  const ranked = PHASES.filter((p) => phases[p] > 0).sort((a, b) => phases[b] - phases[a]);
  const dominant = ranked[0] ?? null;
  const rows = [...attempts.values()].sort((a, b) => a.attempt - b.attempt);
  const unusual = compare(phases, totalMs, ctx.baselines ?? []);
  const report: Omit<SlownessReport, "summary"> = {
    totalMs,
    isOngoing: timeline.isOngoing,
    isTruncated: timeline.isTruncated,
    phases,
    dominant,
    attempts: rows,
    aheadAtSubmit: ctx.aheadAtSubmit ?? null,
    unusual,
  };
  return { ...report, summary: summarize(report, job, ranked, timeline.segments) };
}

/** Each phase (and the total) that took longer than the p95 of comparable jobs. */
function compare(phases: Record<Phase, number>, totalMs: number, baselines: readonly Baseline[]): Unusual[] {
  const out: Unusual[] = [];
  for (const b of baselines) {
    if (b.n < MIN_BASELINE_JOBS) continue;
    for (const key of ["total", ...PHASES] as const) {
      const ms = key === "total" ? totalMs : phases[key];
      const pct = b.phases[key];
      if (!pct || ms < UNUSUAL_FLOOR_MS || ms <= pct.p95) continue;
      out.push({ phase: key, ms, p50: pct.p50, p95: pct.p95, baseline: b.label });
    }
  }
  return out;
}

function summarize(r: Omit<SlownessReport, "summary">, job: SlownessJob, ranked: Phase[], segments: readonly Segment[]): string {
  if (!r.dominant || r.totalMs === 0) return "No time has passed since it was submitted.";
  const of = `${formatDuration(r.totalMs)}${r.isOngoing ? " so far" : ""}`;
  const parts = [`${pct(r.phases[r.dominant], r.totalMs)} of ${of} was ${phrase(r.dominant, r, job)}`];
  // A runner-up worth naming: at least a fifth of the time.
  const second = ranked[1];
  if (second && r.phases[second] / r.totalMs >= 0.2) parts.push(`${pct(r.phases[second], r.totalMs)} was ${phrase(second, r, job)}`);
  const lost = r.attempts.filter((a) => a.outcome === "lease_expired");
  for (const a of lost.slice(0, 3)) {
    parts.push(`attempt ${a.attempt} was lost when worker ${a.worker ?? "?"} stopped heartbeating after ${formatDuration(a.lostMs)}`);
  }
  if (lost.length > 3) parts.push(`${lost.length - 3} more attempts were lost the same way`);
  let text = parts.join("; ") + ".";
  if (r.isOngoing) text += ` It is still ${ongoingWords(segments.at(-1))}.`;
  if (r.isTruncated) text += " Only its newest events were loaded, so its earliest time is missing.";
  if (r.unusual.length) {
    // Against the first (narrowest) baseline that found anything; each phase once.
    const against = r.unusual[0]!.baseline;
    const u = r.unusual
      .filter((x) => x.baseline === against)
      .map((x) => `${x.phase === "total" ? "in total" : PHASE_LABELS[x.phase]} ${formatDuration(x.ms)} (p95 ${formatDuration(x.p95)})`);
    text += ` Unusual against ${against}: ${u.join(", ")}.`;
  }
  return text;
}

function phrase(p: Phase, r: Omit<SlownessReport, "summary">, job: SlownessJob): string {
  switch (p) {
    case "retry_backoff": {
      const failed = r.attempts.filter((a) => a.outcome === "failed");
      if (failed.length === 0) return "retry backoff";
      const classes = countBy(failed.map((a) => a.errorClass ?? "unknown error"));
      if (classes.size === 1) {
        const [cls] = [...classes.keys()];
        return `retry backoff after ${failed.length} ${humanizeError(cls!, failed.length)}`;
      }
      const list = [...classes].map(([c, n]) => `${n}× ${c}`).join(", ");
      return `retry backoff after ${failed.length} failed attempts (${list})`;
    }
    case "queue_wait": {
      const ahead = r.aheadAtSubmit;
      const behind = ahead === null ? "" : ahead === 0 ? ` (no job of queue ${job.queue} was ahead of it at submit)` : ` (behind ${ahead.toLocaleString("en-US")} ${ahead === 1 ? "job" : "jobs"} of queue ${job.queue} at submit)`;
      return `waiting in the queue${behind}`;
    }
    case "scheduled":
      return "the delay it was scheduled with (not_before)";
    case "running": {
      const n = r.attempts.filter((a) => a.runningMs > 0).length;
      return n > 1 ? `running, over ${n} attempts` : "running";
    }
    case "claimed":
      return "claimed by a worker that had not started it";
    case "paused":
      return "paused by an operator";
    case "lost_to_lease":
      return "work lost to expired leases (the worker stopped heartbeating)";
    case "dead":
      return "dead, until an operator replayed it";
  }
}

function ongoingWords(s: Segment | undefined): string {
  switch (s?.kind) {
    case "queue_wait":
      return "waiting in the queue";
    case "retry_wait":
      return "backing off before its next attempt";
    case "paused":
      return "paused";
    case "claimed":
      return "claimed, not yet started";
    case "cancelling":
      return "being cancelled";
    default:
      return "running";
  }
}

/** "UpstreamTimeout" → "upstream timeouts"; an already spaced class is kept as it is. */
export function humanizeError(cls: string, n: number): string {
  const words = /\s/.test(cls) ? cls : cls.replace(/Error$/, " error").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().trim();
  if (n === 1) return words;
  return /(s|x|ch|sh)$/.test(words) ? `${words}es` : `${words}s`;
}

const pct = (part: number, total: number) => `${Math.max(1, Math.round((part / total) * 100))}%`;
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
function countBy(xs: string[]) {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/** Nearest-rank percentile of `values` (0 < q ≤ 1); NaN for none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Per-phase p50/p95 over reports of comparable jobs. */
export function baselineOf(label: string, reports: readonly Pick<SlownessReport, "phases" | "totalMs">[]): Baseline {
  const phases: Baseline["phases"] = {};
  if (reports.length) {
    for (const key of ["total", ...PHASES] as const) {
      const xs = reports.map((r) => (key === "total" ? r.totalMs : r.phases[key]));
      phases[key] = { p50: percentile(xs, 0.5), p95: percentile(xs, 0.95) };
    }
  }
  return { label, n: reports.length, phases };
}
