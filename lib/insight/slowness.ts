import type { EventRecord, RunRecord } from "../jobs/queries";
import { buildTimeline, formatDuration, type Segment } from "../jobs/timeline";
import type { ActorKind } from "../fsm/table";
import type { JobRow } from "../jobs/types";
import { formatClock, zoneLabel } from "../time-format";

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

/** Who reads the explanation: staff see the machinery's terms; a tenant sees none of them (issue 14, item 14). */
export type Audience = "staff" | "tenant";

/** The same phases in a customer's words: no lease, claim, p95, worker or queue internals. */
export const TENANT_PHASE_LABELS: Record<Phase, string> = {
  scheduled: "scheduled start",
  queue_wait: "waiting its turn",
  claimed: "starting",
  running: "running",
  paused: "paused",
  retry_backoff: "waiting to retry",
  lost_to_lease: "lost to an interrupted try",
  dead: "stopped, until it was restarted",
};

export const phaseLabels = (audience: Audience): Record<Phase, string> => (audience === "tenant" ? TENANT_PHASE_LABELS : PHASE_LABELS);

export type SlownessJob = Pick<JobRow, "type" | "queue" | "state" | "createdAt" | "notBefore"> & Partial<Pick<JobRow, "tenantId">>;
export type SlownessRun = Pick<RunRecord, "attempt" | "workerId" | "claimedAt" | "startedAt" | "finishedAt" | "outcome" | "errorClass"> &
  Partial<Pick<RunRecord, "errorMessage">>;
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
  /** The attempt's lease expired before it started: the worker went silent between claim and start. */
  neverStarted: boolean;
  /** When its worker went silent (the last heartbeat it wrote), for an attempt whose lease expired; null if unknown. */
  silentAt: number | null;
};

/** p50 / p95 per phase (and total) for comparable jobs, and how many jobs they were taken from. */
export type Baseline = {
  /** Who the jobs were: "export.tenant_data jobs" or "acme's export.tenant_data jobs". */
  label: string;
  n: number;
  phases: Partial<Record<Phase | "total", { p50: number; p95: number }>>;
};

export type Unusual = { phase: Phase | "total"; ms: number; p50: number; p95: number; baseline: string };

/** What made the job slower than its usual, the one answer the sentence leads with. */
export type CauseKind =
  | "none"
  | "nothing_unusual"
  | "lost_attempt"
  | "never_started"
  | "slow_run"
  | "running"
  | "queue_paused"
  | "no_worker"
  | "jobs_ahead"
  | "queue_wait"
  | "retry_backoff"
  | "scheduled"
  | "paused"
  | "dead"
  | "claimed";

export type Cause = {
  kind: CauseKind;
  /** The time the cause cost: the lost attempts and their wait to be handed out again, the wait while paused, … */
  ms: number;
  /** Other phases that added to it (named, not the cause). */
  contributors: Phase[];
};

/** A stretch of the job's queue wait with a cause: its queue paused, or no worker serving the queue. */
export type WaitInterval = { from: number; to: number };

export type WaitCauses = {
  pausedMs: number;
  paused: WaitInterval[];
  /** Who paused the queue (the last pause that overlapped), as an actor kind and id. */
  pausedBy: { kind: ActorKind; id: string } | null;
  noWorkerMs: number;
  noWorker: WaitInterval[];
};

export type SlownessReport = {
  totalMs: number;
  isOngoing: boolean;
  /** Only the newest events were loaded: the earliest phases may be missing. */
  isTruncated: boolean;
  /** The one set of phase totals: the sentence, the chips and the "unusual" tags all read these. */
  phases: Record<Phase, number>;
  /** The largest phase, or null while no time has passed. */
  dominant: Phase | null;
  cause: Cause;
  attempts: AttemptBreakdown[];
  /** Jobs of its queue ahead of it when it was submitted, if known (all tenants' jobs). */
  aheadAtSubmit: number | null;
  /** The count stopped at its cap: at least that many. */
  aheadCapped: boolean;
  /** Of those, its own tenant's. */
  aheadOwn: number | null;
  waits: WaitCauses;
  unusual: Unusual[];
  /** The state's own first sentence: why a dead job failed, who cancelled, how long a running job has run. */
  lead: string | null;
  /** What can be done next, for a dead job. */
  next: string | null;
  summary: string;
};

export type SlownessContext = {
  now: number;
  audience?: Audience;
  /** Clock times in the sentence are written in this IANA time zone (default UTC). */
  timeZone?: string;
  /** How many jobs of its queue (all tenants) were waiting ahead of it at submit (lib/insight/baseline.ts). */
  aheadAtSubmit?: number | null;
  aheadCapped?: boolean;
  /** Of those, its own tenant's. */
  aheadOwn?: number | null;
  baselines?: readonly Baseline[];
  /** When its queue was paused (epoch ms; `to` null: still paused). */
  queuePauses?: readonly { from: number; to: number | null; byKind: ActorKind; by: string }[];
  /** When workers that serve its queue were alive (epoch ms); null or absent: unknown, no claim made. */
  serving?: readonly WaitInterval[] | null;
  /** Per lost attempt: its worker's last heartbeat (epoch ms). */
  silentAt?: Readonly<Record<number, number>>;
};

/** Below this many comparable jobs, percentiles say little: no comparison is made. */
export const MIN_BASELINE_JOBS = 20;
/** A phase shorter than this is never called unusual. */
const UNUSUAL_FLOOR_MS = 1_000;
/** A wait cause (paused, no worker) shorter than this is not named. */
const WAIT_CAUSE_FLOOR_MS = 60_000;
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
      const lost = run?.outcome === "lease_expired";
      const silent = ctx.silentAt?.[n];
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
        neverStarted: lost && !run?.startedAt,
        // A heartbeat only counts inside the attempt: a worker seen again later says nothing about this one.
        silentAt:
          lost && silent !== undefined && run && silent >= run.claimedAt.getTime() && (!run.finishedAt || silent <= run.finishedAt.getTime()) ? silent : null,
      };
      attempts.set(n, a);
    }
    return a;
  };
  for (const r of runs) attemptRow(r.attempt);

  // The submit's not_before is still on the row unless something rescheduled the job since.
  const scheduledUntil = events.some((e) => RESCHEDULING.has(e.event)) ? null : job.notBefore.getTime();
  const waiting: WaitInterval[] = [];

  for (const s of timeline.segments) {
    const lost = s.outcome === "lease_expired" && (s.kind === "claimed" || s.kind === "running" || s.kind === "cancelling");
    const own = attemptRow(s.attempt);
    switch (s.kind) {
      case "queue_wait": {
        const scheduled = s.attempt === 0 && s.startEvent === "submit" && scheduledUntil !== null ? clamp(scheduledUntil - s.start, 0, s.durationMs) : 0;
        phases.scheduled += scheduled;
        phases.queue_wait += s.durationMs - scheduled;
        if (s.durationMs > scheduled) waiting.push({ from: s.start + scheduled, to: s.end });
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
  const baselines = ctx.baselines ?? [];
  const unusual = compare(phases, totalMs, baselines);
  const waits = waitCauses(waiting, ctx);
  const partial: Omit<SlownessReport, "summary" | "cause" | "lead" | "next"> = {
    totalMs,
    isOngoing: timeline.isOngoing,
    isTruncated: timeline.isTruncated,
    phases,
    dominant,
    attempts: rows,
    aheadAtSubmit: ctx.aheadAtSubmit ?? null,
    aheadCapped: ctx.aheadCapped ?? false,
    aheadOwn: ctx.aheadOwn ?? null,
    waits,
    unusual,
  };
  const baseline = baselines.find((b) => b.n >= MIN_BASELINE_JOBS) ?? null;
  const cause = causeOf(partial, baseline);
  const w = new Words(ctx.audience ?? "staff", ctx.timeZone ?? "UTC", job);
  const { lead, next } = leadOf({ ...partial, cause }, job, runs, events, baseline, w);
  const report = { ...partial, cause, lead, next };
  return { ...report, summary: summarize(report, baseline, timeline.segments, w) };
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

/** The parts of the job's queue wait during which its queue was paused, or no worker served it. */
function waitCauses(waiting: readonly WaitInterval[], ctx: SlownessContext): WaitCauses {
  const paused: WaitInterval[] = [];
  let pausedBy: WaitCauses["pausedBy"] = null;
  for (const p of ctx.queuePauses ?? []) {
    const to = p.to ?? ctx.now;
    for (const w of waiting) {
      const from = Math.max(p.from, w.from);
      const end = Math.min(to, w.to);
      if (end > from) {
        paused.push({ from, to: end });
        pausedBy = { kind: p.byKind, id: p.by };
      }
    }
  }
  const noWorker: WaitInterval[] = [];
  if (ctx.serving) {
    const alive = merge(ctx.serving);
    for (const w of waiting) noWorker.push(...uncovered(w, alive));
  }
  return {
    pausedMs: sumOf(paused),
    paused: merge(paused),
    pausedBy,
    noWorkerMs: sumOf(noWorker),
    noWorker: merge(noWorker).filter((i) => i.to - i.from >= WAIT_CAUSE_FLOOR_MS),
  };
}

/**
 * What made the job slower than its usual. Each candidate is what a phase cost beyond the median of
 * comparable jobs (without a usable baseline, the median is unknown: running is then the job's own
 * work, and only the rest can be extra). A lost attempt costs its own time and its wait to be handed
 * out again: pure waste, however long the successful run was.
 */
function causeOf(r: Omit<SlownessReport, "summary" | "cause" | "lead" | "next">, baseline: Baseline | null): Cause {
  if (r.totalMs === 0) return { kind: "none", ms: 0, contributors: [] };
  const p50 = (p: Phase) => baseline?.phases[p]?.p50 ?? 0;
  const p95 = (p: Phase | "total") => baseline?.phases[p]?.p95 ?? Number.POSITIVE_INFINITY;
  const lostAttempts = r.attempts.filter((a) => a.outcome === "lease_expired");
  const requeue = lostAttempts.reduce((sum, a) => sum + (r.attempts.find((b) => b.attempt === a.attempt + 1)?.queueWaitMs ?? 0), 0);
  const lostCost = r.phases.lost_to_lease + requeue;
  const wait = r.phases.queue_wait - requeue;
  const candidates: { kind: CauseKind; excess: number; ms: number; phase: Phase }[] = [
    { kind: lostAttempts.length && lostAttempts.every((a) => a.neverStarted) ? "never_started" : "lost_attempt", excess: lostCost - p50("lost_to_lease"), ms: lostCost, phase: "lost_to_lease" },
    { kind: "queue_wait", excess: wait - p50("queue_wait"), ms: wait, phase: "queue_wait" },
    { kind: "retry_backoff", excess: r.phases.retry_backoff - p50("retry_backoff"), ms: r.phases.retry_backoff, phase: "retry_backoff" },
    { kind: "claimed", excess: r.phases.claimed - p50("claimed"), ms: r.phases.claimed, phase: "claimed" },
    { kind: "scheduled", excess: r.phases.scheduled - p50("scheduled"), ms: r.phases.scheduled, phase: "scheduled" },
    { kind: "paused", excess: r.phases.paused - p50("paused"), ms: r.phases.paused, phase: "paused" },
    { kind: "dead", excess: r.phases.dead - p50("dead"), ms: r.phases.dead, phase: "dead" },
  ];
  const waste = candidates.reduce((sum, c) => sum + Math.max(0, c.ms), 0);
  const run = { kind: "running" as CauseKind, excess: r.phases.running - p50("running"), ms: r.phases.running, phase: "running" as Phase };
  if (baseline) candidates.push(run);
  // No baseline: the job mostly ran, or only waste could be named.
  else if (waste < 0.25 * r.totalMs) candidates.push({ ...run, excess: Number.POSITIVE_INFINITY });
  const best = candidates.filter((c) => c.ms > 0).sort((a, b) => b.excess - a.excess)[0];
  if (baseline && r.unusual.every((u) => u.baseline !== baseline.label) && !(best && best.ms > p95(best.phase) && best.excess > 0)) {
    return { kind: "nothing_unusual", ms: 0, contributors: [] };
  }
  if (!best) return { kind: "nothing_unusual", ms: 0, contributors: [] };
  let kind = best.kind;
  if (kind === "running" && baseline && r.phases.running > p95("running")) kind = "slow_run";
  if (kind === "queue_wait") {
    const share = (ms: number) => ms >= WAIT_CAUSE_FLOOR_MS && ms >= 0.3 * best.ms;
    if (share(r.waits.pausedMs)) kind = "queue_paused";
    else if (share(r.waits.noWorkerMs)) kind = "no_worker";
    else if ((r.aheadAtSubmit ?? 0) > 0) kind = "jobs_ahead";
  }
  // What else added to it: a fifth of the time, or (for a slow run) any queue wait and backoff.
  const contributors = PHASES.filter((p) => {
    if (p === best.phase || r.phases[p] <= 0) return false;
    // The wait to be handed out again after a lost attempt is part of that attempt's cost, not a contributor.
    if (p === "queue_wait" && best.phase === "lost_to_lease") return wait > 0 && wait / r.totalMs >= 0.2;
    if (kind === "slow_run" && (p === "queue_wait" || p === "retry_backoff")) return r.phases[p] >= UNUSUAL_FLOOR_MS;
    return r.phases[p] / r.totalMs >= 0.2 && (p !== "running" || !baseline || r.phases.running > p95("running"));
  });
  return { kind, ms: best.ms, contributors };
}

/** The sentence's vocabulary for one audience and time zone. */
class Words {
  readonly labels: Record<Phase, string>;
  constructor(
    readonly audience: Audience,
    readonly timeZone: string,
    readonly job: SlownessJob,
  ) {
    this.labels = phaseLabels(audience);
  }
  get tenant() {
    return this.audience === "tenant";
  }
  /** "08:04 UTC", "09:04 GMT+1": the viewer's wall clock, with its zone. */
  clock(ms: number): string {
    return `${formatClock(new Date(ms), this.timeZone).slice(0, 5)} ${zoneLabel(new Date(ms), this.timeZone)}`;
  }
  span(i: WaitInterval): string {
    return `from ${formatClock(new Date(i.from), this.timeZone).slice(0, 5)} to ${this.clock(i.to)}`;
  }
  /** Who did something: staff see the person; a tenant sees their own colleagues, and only a role for staff. */
  who(kind: ActorKind, id: string): string {
    switch (kind) {
      case "operator":
        return this.tenant ? "an operator" : `${id} (operator)`;
      case "tenant":
        return this.tenant ? `someone on your account (${id})` : `${id} (the customer)`;
      case "api":
        return this.tenant ? "a request through the API" : `the API (${id})`;
      case "supervisor":
        return this.tenant ? "the system" : `the supervisor (${id})`;
      case "worker":
        return this.tenant ? "the system" : `worker ${id}`;
    }
  }
  attempt(n: number): string {
    if (!this.tenant) return `attempt ${n}`;
    return `its ${ordinal(n)} try`;
  }
  ahead(r: Pick<SlownessReport, "aheadAtSubmit" | "aheadCapped" | "aheadOwn">): string | null {
    const n = r.aheadAtSubmit;
    if (n === null) return null;
    const atLeast = r.aheadCapped ? "at least " : "";
    if (n === 0) return this.tenant ? "no job was ahead of it when it was submitted" : `no job of queue ${this.job.queue} was ahead of it at submit`;
    const count = `${atLeast}${n.toLocaleString("en-US")} ${n === 1 ? "job" : "jobs"}`;
    let split = "";
    if (r.aheadOwn !== null && n > 0) {
      const own = Math.min(r.aheadOwn, n);
      const others = n - own;
      const a = (x: number) => `${atLeast}${x.toLocaleString("en-US")}`;
      split = this.tenant
        ? ` (${a(own)} yours, ${a(others)} other customers')`
        : ` (${a(own)} of ${this.job.tenantId ?? "its tenant"}'s, ${a(others)} of other tenants')`;
    }
    return this.tenant ? `behind ${count} submitted before it${split}` : `behind ${count} of queue ${this.job.queue} at submit${split}`;
  }
}

function leadOf(
  r: Omit<SlownessReport, "summary" | "lead" | "next">,
  job: SlownessJob,
  runs: readonly SlownessRun[],
  events: readonly SlownessEvent[],
  baseline: Baseline | null,
  w: Words,
): { lead: string | null; next: string | null } {
  if (job.state === "dead") {
    const last = [...runs].sort((a, b) => b.attempt - a.attempt)[0];
    const tries = runs.length;
    const what = last?.errorClass ? `${last.errorClass}${last.errorMessage ? `: ${last.errorMessage}` : ""}` : "no error was recorded";
    const n = w.tenant ? `${tries} ${tries === 1 ? "try" : "tries"}` : `${tries} ${tries === 1 ? "attempt" : "attempts"}`;
    const lead = `It failed after ${n}; the last one ended with ${what}.`;
    const silent = runs.filter((x) => x.outcome === "lease_expired").length;
    let next: string;
    if (w.tenant) next = "Contact support with this job's id to have it run again, or submit it again once the cause is fixed.";
    else if (silent >= 2 || last?.errorClass === "LeaseExpired")
      next = `Its workers went silent on it ${silent} ${silent === 1 ? "time" : "times"}: look at its params before an operator replays it.`;
    else next = "An operator can replay it once the cause is fixed.";
    return { lead, next };
  }
  if (job.state === "cancelled" || job.state === "cancelling") {
    const c = [...events].reverse().find((e) => e.event === "cancel");
    if (!c) return { lead: "It was cancelled.", next: null };
    const lead = `It was cancelled by ${w.who(c.actorKind, c.actorId)} at ${w.clock(c.at.getTime())}${job.state === "cancelling" ? "; it stops at its next checkpoint" : ""}.`;
    return { lead, next: null };
  }
  if (r.isOngoing) {
    const total = baseline?.phases.total;
    const so = `It has taken ${formatDuration(r.totalMs)} so far`;
    if (!total) return { lead: null, next: null };
    const usual = w.tenant
      ? `jobs like it usually take ${formatDuration(total.p50)} (95 of 100 within ${formatDuration(total.p95)})`
      : `${baseline!.label} take ${formatDuration(total.p50)} at the median (p95 ${formatDuration(total.p95)})`;
    const beyond = r.totalMs > total.p95 ? ", already longer than usual" : r.totalMs > total.p50 ? ", longer than most" : ", within the usual";
    return { lead: `${so}${beyond}: ${usual}.`, next: null };
  }
  return { lead: null, next: null };
}

function summarize(r: Omit<SlownessReport, "summary">, baseline: Baseline | null, segments: readonly Segment[], w: Words): string {
  if (r.cause.kind === "none") return "No time has passed since it was submitted.";
  const out: string[] = [];
  if (r.lead) out.push(r.lead);
  out.push(causeSentence(r, baseline, w));
  if (r.isOngoing) out.push(`It is still ${ongoingWords(segments.at(-1), w)}.`);
  if (r.isTruncated) out.push("Only its newest events were loaded, so its earliest time is missing.");
  const mine = r.unusual.filter((u) => u.baseline === baseline?.label);
  if (mine.length && r.cause.kind !== "nothing_unusual") {
    const list = mine.map((x) =>
      w.tenant
        ? `${x.phase === "total" ? "in total" : w.labels[x.phase]} ${formatDuration(x.ms)} (${x.p95 > 0 ? `usually within ${formatDuration(x.p95)}` : "usually none"})`
        : `${x.phase === "total" ? "in total" : w.labels[x.phase]} ${formatDuration(x.ms)} (p95 ${x.p95 > 0 ? formatDuration(x.p95) : "none"})`,
    );
    out.push(w.tenant ? `Longer than usual for ${mine[0]!.baseline}: ${list.join(", ")}.` : `Unusual against ${mine[0]!.baseline}: ${list.join(", ")}.`);
  }
  return out.join(" ");
}

function causeSentence(r: Omit<SlownessReport, "summary">, baseline: Baseline | null, w: Words): string {
  const c = r.cause;
  const of = `${formatDuration(r.totalMs)}${r.isOngoing ? " so far" : ""}`;
  const cost = `${formatDuration(c.ms)} of its ${of}`;
  const alsoWords = c.contributors.length
    ? ` ${capital(c.contributors.map((p) => `${w.labels[p]} (${formatDuration(r.phases[p])})`).join(" and "))} added to it.`
    : "";
  const ahead = w.ahead(r);
  // A lost attempt that added to another cause is still named, with when its worker went silent.
  const lostNote = c.contributors.includes("lost_to_lease")
    ? " " + r.attempts.filter((a) => a.outcome === "lease_expired").slice(0, 3).map((a) => lostWords(a, r, w)).join(" ")
    : "";
  const also = alsoWords + lostNote;
  switch (c.kind) {
    case "none":
      return "No time has passed since it was submitted.";
    case "nothing_unusual": {
      const t = baseline?.phases.total;
      const usual = t
        ? w.tenant
          ? `about as long as ${baseline!.label} usually take (typically ${formatDuration(t.p50)})`
          : `within the usual for ${baseline!.label} (p50 ${formatDuration(t.p50)}, p95 ${formatDuration(t.p95)})`
        : "";
      const largest = r.dominant ? `; most of it was ${w.labels[r.dominant]}` : "";
      return `Nothing unusual: it took ${of}${usual ? `, ${usual}` : ""}${largest}.`;
    }
    case "lost_attempt":
    case "never_started": {
      const lost = r.attempts.filter((a) => a.outcome === "lease_expired");
      const details = lost.slice(0, 3).map((a) => lostWords(a, r, w));
      const more = lost.length > 3 ? ` ${lost.length - 3} more ${w.tenant ? "tries were" : "attempts were"} lost the same way.` : "";
      const many = lost.length > 1;
      const head =
        c.kind === "never_started"
          ? w.tenant
            ? `Slow because ${many ? "tries" : "a try"} never began and it had to wait to be picked up again`
            : `Slow because ${many ? "claims were" : "a claim was"} never started`
          : w.tenant
            ? `Slow because ${many ? "tries were" : "a try was"} interrupted and it had to start again`
            : `Slow because work was lost to ${many ? "workers" : "a worker"} that went silent`;
      return `${head}: ${cost}. ${details.join(" ")}${more}${also}`;
    }
    case "slow_run": {
      const p = baseline?.phases.running;
      const final = [...r.attempts].reverse().find((a) => a.runningMs > 0);
      const ran = formatDuration(final?.runningMs ?? r.phases.running);
      const usual = p ? (w.tenant ? `jobs like it usually finish their work within ${formatDuration(p.p95)}` : `far beyond the p95 of ${baseline!.label} (${formatDuration(p.p95)})`) : "";
      const current = r.isOngoing && final?.outcome === "open";
      return w.tenant
        ? `Slow because the work itself ${current ? `has taken ${ran} so far` : `took ${ran}`} this time; ${usual}.${also}`
        : `Slow because its ${current ? `current run has taken ${ran} so far` : `final run took ${ran}`}, ${usual}.${also}`;
    }
    case "running":
      return `Most of its ${of} was ${w.tenant ? "the work itself" : "running"}: ${formatDuration(r.phases.running)}${countRuns(r) > 1 ? `, over ${countRuns(r)} ${w.tenant ? "tries" : "attempts"}` : ""}.${also}`;
    case "queue_paused": {
      const by = r.waits.pausedBy ? ` by ${w.who(r.waits.pausedBy.kind, r.waits.pausedBy.id)}` : "";
      const when = r.waits.paused.map((i) => w.span(i)).join(", ");
      return w.tenant
        ? `Slow because processing of jobs like it was paused${by} ${when} while it waited: ${formatDuration(r.waits.pausedMs)} of its ${of}.${aheadTail(ahead)}${also}`
        : `Slow because queue ${w.job.queue} was paused${by} ${when} while it waited: ${formatDuration(r.waits.pausedMs)} of its ${of}.${aheadTail(ahead)}${also}`;
    }
    case "no_worker": {
      const when = r.waits.noWorker.map((i) => w.span(i)).join(", ");
      return w.tenant
        ? `Slow because nothing was available to run jobs like it ${when} while it waited: ${formatDuration(r.waits.noWorkerMs)} of its ${of}.${aheadTail(ahead)}${also}`
        : `Slow because no worker was serving queue ${w.job.queue} ${when} while it waited: ${formatDuration(r.waits.noWorkerMs)} of its ${of}.${aheadTail(ahead)}${also}`;
    }
    case "jobs_ahead":
    case "queue_wait": {
      const where = w.tenant ? "for its turn" : "in the queue";
      return `Slow because it waited ${where} for ${cost}${ahead ? (ahead.startsWith("behind") ? `, ${ahead}` : ` (${ahead})`) : ""}.${also}`;
    }
    case "retry_backoff":
      return `Slow because of ${backoffWords(r, w)}: ${cost}.${also}`;
    case "scheduled":
      return `Most of its ${of} was the delay it was scheduled with: ${formatDuration(c.ms)}${w.tenant ? "" : " (not_before)"}.${also}`;
    case "paused":
      return `Slow because it was paused by an operator for ${formatDuration(c.ms)} of its ${of}.${also}`;
    case "dead":
      return w.tenant
        ? `Slow because it had stopped for ${formatDuration(c.ms)} until it was restarted, of its ${of}.${also}`
        : `Slow because it was dead for ${formatDuration(c.ms)} until an operator replayed it, of its ${of}.${also}`;
    case "claimed":
      return w.tenant
        ? `Slow because it took ${formatDuration(c.ms)} to start once it was picked up, of its ${of}.${also}`
        : `Slow because it was claimed by a worker that had not started it for ${formatDuration(c.ms)}, of its ${of}.${also}`;
  }
}

const aheadTail = (ahead: string | null) => (ahead && ahead.startsWith("behind") ? ` It was ${ahead}.` : "");
const countRuns = (r: Pick<SlownessReport, "attempts">) => r.attempts.filter((a) => a.runningMs > 0).length;

/** One lost attempt: when its worker went silent (its last heartbeat), how far in, and whether it had started. */
function lostWords(a: AttemptBreakdown, r: Omit<SlownessReport, "summary">, w: Words): string {
  const next = r.attempts.find((b) => b.attempt === a.attempt + 1);
  const again =
    next && next.queueWaitMs >= UNUSUAL_FLOOR_MS ? ` It then waited ${formatDuration(next.queueWaitMs)} to be ${w.tenant ? "picked up again" : "handed out again"}.` : "";
  const silentAt = a.silentAt !== null ? ` at ${w.clock(a.silentAt)}` : "";
  if (a.neverStarted) {
    return w.tenant
      ? `${capital(w.attempt(a.attempt))} never began: the machine that picked it up stopped responding${silentAt}, before starting it.${again}`
      : `Attempt ${a.attempt} was claimed but never started: worker ${a.worker ?? "?"} went silent${silentAt}${a.silentAt !== null ? " (its last heartbeat)" : ""} between claim and start.${again}`;
  }
  return w.tenant
    ? `${capital(w.attempt(a.attempt))} stopped when the machine running it stopped responding${silentAt}; its work was lost.${again}`
    : `Attempt ${a.attempt} was lost when worker ${a.worker ?? "?"} went silent${silentAt}${a.silentAt !== null ? " (its last heartbeat)" : ""}; its ${formatDuration(a.lostMs)} of work were thrown away.${again}`;
}

function backoffWords(r: Omit<SlownessReport, "summary">, w: Words): string {
  const failed = r.attempts.filter((a) => a.outcome === "failed");
  const name = w.tenant ? "waiting to retry" : "retry backoff";
  if (failed.length === 0) return name;
  const classes = countBy(failed.map((a) => a.errorClass ?? "unknown error"));
  if (classes.size === 1) {
    const [cls] = [...classes.keys()];
    return `${name} after ${failed.length} ${humanizeError(cls!, failed.length)}`;
  }
  const list = [...classes].map(([c, n]) => `${n}× ${c}`).join(", ");
  return `${name} after ${failed.length} failed ${w.tenant ? "tries" : "attempts"} (${list})`;
}

function ongoingWords(s: Segment | undefined, w: Words): string {
  switch (s?.kind) {
    case "queue_wait":
      return w.tenant ? "waiting its turn" : "waiting in the queue";
    case "retry_wait":
      return w.tenant ? "waiting to retry" : "backing off before its next attempt";
    case "paused":
      return "paused";
    case "claimed":
      return w.tenant ? "starting" : "claimed, not yet started";
    case "cancelling":
      return "being cancelled";
    default:
      return "running";
  }
}

const capital = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);
function ordinal(n: number): string {
  const words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return words[n - 1] ?? `${n}th`;
}
function sumOf(xs: readonly WaitInterval[]) {
  return merge(xs).reduce((s, i) => s + (i.to - i.from), 0);
}
function merge(xs: readonly WaitInterval[]): WaitInterval[] {
  const sorted = [...xs].filter((i) => i.to > i.from).sort((a, b) => a.from - b.from);
  const out: WaitInterval[] = [];
  for (const i of sorted) {
    const last = out.at(-1);
    if (last && i.from <= last.to) last.to = Math.max(last.to, i.to);
    else out.push({ ...i });
  }
  return out;
}
/** The parts of `w` that no interval of `alive` (merged) covers. */
function uncovered(w: WaitInterval, alive: readonly WaitInterval[]): WaitInterval[] {
  const out: WaitInterval[] = [];
  let at = w.from;
  for (const a of alive) {
    if (a.to <= at) continue;
    if (a.from >= w.to) break;
    if (a.from > at) out.push({ from: at, to: a.from });
    at = Math.max(at, a.to);
    if (at >= w.to) break;
  }
  if (at < w.to) out.push({ from: at, to: w.to });
  return out;
}

/** "UpstreamTimeout" → "upstream timeouts"; an already spaced class is kept as it is. */
export function humanizeError(cls: string, n: number): string {
  const words = /\s/.test(cls) ? cls : cls.replace(/Error$/, " error").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().trim();
  if (n === 1) return words;
  return /(s|x|ch|sh)$/.test(words) ? `${words}es` : `${words}s`;
}

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
