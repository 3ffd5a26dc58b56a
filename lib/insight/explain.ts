import { findTransition, isRescheduling } from "../fsm/machine";
import type { ActorKind, JobEvent, JobState } from "../fsm/table";
import type { RunRecord } from "../jobs/queries";
import { heldUntilOf } from "../jobs/poison";
import { buildTimeline, type Segment, type TimelineEvent } from "../jobs/timeline";
import { PHASES, type AttemptRow, type Baseline, type CauseKind, type Claim, type ClaimOf, type Explanation, type Phase, type Who } from "./claims";

/**
 * "Why was this slow", as claims (lib/insight/claims.ts). Pure: built from the job's own record
 * (its row, its attempts, its events) and what the server read about the rest of the system at
 * `asOf` (ExplainContext, lib/insight/context.ts). The same timeline as the job page's chart
 * (lib/jobs/timeline.ts), so the bar, the chart and the words agree.
 */

export type ExplainJob = {
  id: string;
  type: string;
  queue: string;
  tenantId: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  createdAt: Date;
  notBefore: Date;
};
export type ExplainRun = Pick<RunRecord, "attempt" | "workerId" | "claimedAt" | "startedAt" | "finishedAt" | "outcome" | "errorClass"> & {
  errorMessage?: string | null;
};
export type ExplainEvent = TimelineEvent & { payload?: Record<string, unknown> | null };

export type Interval = { from: number; to: number };
/** An interval that may still be going on at `asOf` (`to` null). */
export type OpenInterval = { from: number; to: number | null };

/** What the server read about the rest of the system for one job, at `asOf` (lib/insight/context.ts). */
export type ExplainContext = {
  asOf: number;
  /** Its type and tenant's, then (staff only) its type's over every tenant. */
  baselines: Baseline[];
  ahead: { n: number; capped: boolean; own: number | null } | null;
  skipped: { n: number; capped: boolean; morePriority: number; otherTenants: number | null } | null;
  /** When its queue was paused, overlapping the job's life, whole (not clipped to its waits). */
  pauses: (OpenInterval & { by: Who | null })[];
  /** When its queue was at its concurrency limit, during its waits. */
  full: (OpenInterval & { limit: number })[];
  /** When no job of its queue was claimed and no worker serving it was alive, during its waits; null: unknown. */
  noWorker: Interval[] | null;
  /** Per attempt whose lease expired: when its worker went silent, and who was blamed for its death. */
  crashes: Record<number, { silentAt: number | null; blamedOn: { jobId: string; type: string } | null; refunded: boolean }>;
  /** Worker deaths blamed on this job, and the other jobs they took down (null for a tenant: other customers' jobs). */
  crashedWorkers: { crashes: number; tookDown: number | null } | null;
  /** Its size-like parameter's value, when its type has one. */
  input: { param: string; value: number } | null;
};

export const emptyContext = (asOf: number): ExplainContext => ({
  asOf,
  baselines: [],
  ahead: null,
  skipped: null,
  pauses: [],
  full: [],
  noWorker: null,
  crashes: {},
  crashedWorkers: null,
  input: null,
});

/** Below this many comparable jobs, percentiles say little: no comparison is made. */
export const MIN_BASELINE_JOBS = 20;
/** A cause that cost less than this is not named beside the lead. */
export const NAMED_FLOOR_MS = 1_000;
/** A cause that cost less than this share of the job's total is not why it was slow. */
export const MINOR_SHARE = 0.2;
/**
 * Whether a cause that cost `ms` of a job's `totalMs` may lead its explanation: one too small to be
 * named beside a lead cannot be the lead (2 ms in the queue is not why a 39 s job was slow, its run
 * is); a slow run always may, being measured against its type rather than the total.
 */
export const mayLead = (kind: CauseKind, ms: number, totalMs: number): boolean =>
  kind === "slow_run" || ms >= Math.max(NAMED_FLOOR_MS, MINOR_SHARE * totalMs);
/** The crashes blamed on a job from which they lead its explanation, whatever else it cost. */
const CRASHES_LEAD = 2;
/** Who makes a decision the explanation names: people, and tenants' API keys (lib/insight/check.ts reads it too). */
export const PEOPLE: ReadonlySet<ActorKind> = new Set<ActorKind>(["operator", "tenant", "api"]);
const DECISIONS = new Set<JobEvent>(["abandon", "cancel", "replay", "pause", "resume", "retry"]);
/** Waits that follow a lost attempt: the time to be handed out again is part of what the loss cost. */
const REQUEUES = new Set<JobEvent>(["reclaim", "rescue"]);

/** A stretch of waiting in the queue (its scheduled delay left out), the attempt its end began, and whether a lost attempt put it there. */
export type Wait = Interval & { before: number; requeue: boolean };

/** The job's waits in the queue: what the server reads the rest of the system for (lib/insight/context.ts). */
export function queueWaits(job: ExplainJob, runs: readonly ExplainRun[], events: readonly ExplainEvent[], asOf: number): Wait[] {
  const scheduledUntil = events.some((e) => isRescheduling(e.event)) ? null : job.notBefore.getTime();
  return buildTimeline(job, runs, events, asOf).segments.flatMap((s) => {
    if (s.kind !== "queue_wait") return [];
    const scheduled = s.attempt === 0 && s.startEvent === "submit" && scheduledUntil !== null ? clamp(scheduledUntil - s.start, 0, s.durationMs) : 0;
    const skip = scheduled + heldOf(events, s);
    return s.durationMs > skip ? [{ from: s.start + skip, to: s.end, before: s.attempt + 1, requeue: REQUEUES.has(s.startEvent) }] : [];
  });
}

/**
 * Of a wait in the queue that a `reclaim` began, the part its crash backoff held it back: a backoff,
 * like a failed attempt's retry wait, not a wait for a worker (lib/jobs/poison.ts).
 */
function heldOf(events: readonly ExplainEvent[], s: { startEvent: JobEvent | null; attempt: number; start: number; durationMs: number }): number {
  if (s.startEvent !== "reclaim") return 0;
  const until = heldUntilOf(events.find((e) => e.event === "reclaim" && e.attempt === s.attempt)?.payload);
  return until === null ? 0 : clamp(until - s.start, 0, s.durationMs);
}

export function explain(job: ExplainJob, runs: readonly ExplainRun[], events: readonly ExplainEvent[], ctx: ExplainContext): Explanation {
  const asOf = ctx.asOf;
  const timeline = buildTimeline(job, runs, events, asOf);
  const runOf = new Map(runs.map((r) => [r.attempt, r]));
  const phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const rows = new Map<number, AttemptRow>();
  const row = (n: number): AttemptRow | null => {
    if (n < 1) return null;
    let a = rows.get(n);
    if (!a) {
      const run = runOf.get(n);
      a = {
        attempt: n,
        worker: run?.workerId ?? null,
        status: !run ? "waiting" : run.outcome ? "ended" : openStatus(job.state),
        outcome: run?.outcome ?? null,
        errorClass: run?.errorClass ?? null,
        queueWaitMs: 0,
        claimedMs: 0,
        runningMs: 0,
        pausedMs: 0,
        lostMs: 0,
        backoffMs: 0,
        neverStarted: run?.outcome === "lease_expired" && !run.startedAt,
      };
      rows.set(n, a);
    }
    return a;
  };
  for (const r of runs) row(r.attempt);

  const scheduledUntil = events.some((e) => isRescheduling(e.event)) ? null : job.notBefore.getTime();
  const waits: Wait[] = [];
  /** Per lost attempt, the crash backoff of the wait after it. */
  const heldAfter = new Map<number, number>();
  for (const s of timeline.segments) {
    const lost = s.outcome === "lease_expired" && (s.kind === "claimed" || s.kind === "running" || s.kind === "cancelling");
    const own = row(s.attempt);
    switch (s.kind) {
      case "queue_wait": {
        const scheduled =
          s.attempt === 0 && s.startEvent === "submit" && scheduledUntil !== null ? clamp(scheduledUntil - s.start, 0, s.durationMs) : 0;
        // The crash backoff of a job blamed for its worker's death is a backoff, told with the loss.
        const held = heldOf(events, s);
        phases.scheduled += scheduled;
        phases.retry_backoff += held;
        phases.queue_wait += s.durationMs - scheduled - held;
        if (held > 0) {
          heldAfter.set(s.attempt, held);
          if (own) own.backoffMs += held;
        }
        if (s.durationMs > scheduled + held)
          waits.push({ from: s.start + scheduled + held, to: s.end, before: s.attempt + 1, requeue: REQUEUES.has(s.startEvent) });
        // A wait belongs to the attempt that ends it: the next claim.
        const next = row(s.attempt + 1);
        if (next) next.queueWaitMs += s.durationMs - scheduled - held;
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
  const attempts = [...rows.values()].sort((a, b) => a.attempt - b.attempt);

  const claims: Claim[] = [];
  const add = <C extends Claim>(c: C): C => (claims.push(c), c);
  for (const p of PHASES) if (phases[p] > 0) add({ kind: "phase", phase: p, ms: phases[p] });
  if (phases.scheduled > 0 && scheduledUntil !== null) add({ kind: "scheduled", until: scheduledUntil, ms: phases.scheduled });

  // The waits, split by what explains each moment: its queue paused, then no worker, then the limit; the rest was its turn.
  const pauses = ctx.pauses.map((p) => ({ ...p, span: { from: p.from, to: p.to ?? asOf } }));
  const split = waits.map((w) => {
    const paused = pauses.map((p) => intersect([w], [p.span]));
    const left1 = subtract([w], paused.flat());
    const noWorker = intersect(left1, ctx.noWorker ?? []);
    const left2 = subtract(left1, noWorker);
    const full = ctx.full.map((f) => intersect(left2, [{ from: f.from, to: f.to ?? asOf }]));
    const busy = subtract(left2, full.flat());
    return { w, paused, noWorker, full, busy: sum(busy) };
  });
  pauses.forEach((p, i) => {
    const waitedMs = split.reduce((s, x) => s + sum(x.paused[i]!), 0);
    if (waitedMs > 0) add({ kind: "queue_paused", queue: job.queue, from: p.from, to: p.to, by: p.by, waitedMs });
  });
  for (const stretch of mergeAll(split.flatMap((x) => x.noWorker))) {
    add({ kind: "no_worker", queue: job.queue, from: stretch.from, to: stretch.to, waitedMs: stretch.to - stretch.from });
  }
  ctx.full.forEach((f, i) => {
    const waitedMs = split.reduce((s, x) => s + sum(x.full[i]!), 0);
    if (waitedMs > 0) add({ kind: "queue_limit", queue: job.queue, limit: f.limit, from: f.from, to: f.to, waitedMs });
  });
  const requeueOf = new Map(split.filter((x) => x.w.requeue).map((x) => [x.w.before - 1, x.busy]));
  const busyMs = split.filter((x) => !x.w.requeue).reduce((s, x) => s + x.busy, 0);
  const firstWait = split.find((x) => x.w.before === 1 && !x.w.requeue);
  if (busyMs > 0) add({ kind: "busy", ms: busyMs });
  if (ctx.ahead && firstWait) add({ kind: "ahead", ...ctx.ahead });
  if (ctx.skipped && firstWait && ctx.skipped.n > 0) add({ kind: "skipped", ...ctx.skipped });

  // Attempts: the ones that failed, the ones lost with their worker, the crashes blamed on the job.
  const failedRuns = runs.filter((r) => r.outcome === "failed");
  const lastRun = [...runs].sort((a, b) => b.attempt - a.attempt)[0] ?? null;
  const deadBy = job.state === "dead" ? [...events].reverse().find((e) => e.toState === "dead") : undefined;
  const failures =
    failedRuns.length > 0 || job.state === "dead"
      ? add({
          kind: "failures",
          failed: failedRuns.length,
          attempts: runs.length,
          maxAttempts: job.maxAttempts,
          byClass: [...countBy(failedRuns.map((r) => r.errorClass ?? "unknown error"))].map(([errorClass, n]) => ({ errorClass, n })),
          last:
            lastRun && lastRun.outcome
              ? { attempt: lastRun.attempt, errorClass: lastRun.errorClass, errorMessage: lastRun.errorMessage ?? null, outcome: lastRun.outcome }
              : null,
          endedIt: deadBy?.actorKind === "worker",
        })
      : null;
  const lost: ClaimOf<"lost_attempt">[] = [];
  for (const r of runs) {
    if (r.outcome !== "lease_expired") continue;
    const a = rows.get(r.attempt)!;
    const crash = ctx.crashes[r.attempt];
    const silent = crash?.silentAt ?? null;
    lost.push(
      add({
        kind: "lost_attempt",
        attempt: r.attempt,
        worker: r.workerId,
        lostMs: a.lostMs,
        requeueMs: requeueOf.get(r.attempt) ?? 0,
        heldMs: heldAfter.get(r.attempt) ?? 0,
        // A heartbeat only counts inside the attempt: a worker seen again later says nothing about this one.
        silentAt: silent !== null && silent >= r.claimedAt.getTime() && r.finishedAt && silent <= r.finishedAt.getTime() ? silent : null,
        neverStarted: a.neverStarted,
        blamedOn: crash?.blamedOn ?? null,
        refunded: crash?.refunded ?? false,
      }),
    );
  }
  const poison = lastRun?.errorClass === "PoisonJob";
  const crashed = ctx.crashedWorkers && ctx.crashedWorkers.crashes > 0 ? add({ kind: "crashed_workers", ...ctx.crashedWorkers, poison }) : null;

  // A person's decisions, with the attempt budget as it stood.
  let max = submittedMax(events) ?? job.maxAttempts;
  const decisions: ClaimOf<"decision">[] = [];
  let from: JobState | null = null;
  let last: { e: ExplainEvent; from: JobState | null } | null = null;
  for (const e of [...events].sort((a, b) => a.stateVersion - b.stateVersion)) {
    const t = from ? findTransition(from, e.event) : undefined;
    if (e.event === "replay") max = Math.max(max, e.attempt + 1);
    else if (t?.refundsAttempt) max += 1;
    if (from && PEOPLE.has(e.actorKind) && DECISIONS.has(e.event)) {
      const before = e.event === "replay" ? runOf.get(e.attempt) : undefined;
      const ended = before?.outcome
        ? { attempt: before.attempt, outcome: before.outcome, errorClass: before.errorClass, errorMessage: before.errorMessage ?? null }
        : null;
      // What put the job where the replay found it: a person's move (given up during its backoff)
      // when the move just before the replay was one, else its last attempt's end.
      const endedBy =
        e.event === "replay" && last?.from && PEOPLE.has(last.e.actorKind)
          ? { event: last.e.event, by: { kind: last.e.actorKind, id: last.e.actorId }, at: last.e.at.getTime(), from: last.from }
          : null;
      decisions.push(
        add({
          kind: "decision",
          event: e.event,
          by: { kind: e.actorKind, id: e.actorId },
          at: e.at.getTime(),
          from,
          attempt: e.attempt,
          maxAttempts: max,
          ...(e.event === "replay" ? { ended, endedBy } : {}),
        }),
      );
    }
    last = { e, from };
    from = e.toState;
  }

  // Comparisons with jobs of its type that had succeeded before it was submitted.
  const baseline = ctx.baselines.find((b) => b.n >= MIN_BASELINE_JOBS) ?? null;
  const comparable = job.state !== "dead" && job.state !== "cancelled" && job.state !== "cancelling";
  let slowRun: ClaimOf<"compare"> | null = null;
  let totalCompare: ClaimOf<"compare"> | null = null;
  if (baseline && comparable) {
    const succeeded = runs.find((r) => r.outcome === "succeeded");
    const current = job.state === "running" && lastRun && !lastRun.outcome ? lastRun : null;
    const runMs =
      succeeded?.startedAt && succeeded.finishedAt
        ? succeeded.finishedAt.getTime() - succeeded.startedAt.getTime()
        : current?.startedAt
          ? asOf - current.startedAt.getTime()
          : null;
    const compare = (metric: ClaimOf<"compare">["metric"], value: number | null, p: Baseline["total"]) =>
      value !== null && p
        ? add({ kind: "compare", metric, value, above: value > p.p95, n: baseline.n, scope: baseline.scope, p50: p.p50, p95: p.p95 })
        : null;
    totalCompare = compare("total", totalMs, baseline.total);
    slowRun = compare("run", runMs, baseline.run);
    const firstClaim = runOf.get(1)?.claimedAt.getTime() ?? (job.state === "queued" && job.attempt === 0 ? asOf : null);
    const waitStart = Math.max(job.createdAt.getTime(), scheduledUntil ?? job.createdAt.getTime());
    compare("wait", firstClaim !== null && !events.some((e) => e.event === "replay") ? Math.max(0, firstClaim - waitStart) : null, baseline.wait);
    if (ctx.input && baseline.input && ctx.input.value > baseline.input.p95) {
      add({
        kind: "large_input",
        param: ctx.input.param,
        value: ctx.input.value,
        n: baseline.n,
        scope: baseline.scope,
        p50: baseline.input.p50,
        p95: baseline.input.p95,
      });
    }
  }

  // The lead: what a person decided, or why a dead job failed; otherwise the cause that cost most.
  const costs: Partial<Record<CauseKind, number>> = {};
  const cost = (k: CauseKind, ms: number) => ms > 0 && (costs[k] = (costs[k] ?? 0) + ms);
  const blamedLoss = lost.filter((l) => l.blamedOn === null);
  cost(
    "lost_attempt",
    lost.reduce((s, l) => s + lossCost(l), 0),
  );
  // A crash backoff is the loss's cost, not a retry's.
  cost("retry_backoff", phases.retry_backoff - lost.reduce((s, l) => s + l.heldMs, 0));
  cost("paused", phases.paused);
  cost("dead", phases.dead);
  cost("claimed", phases.claimed);
  cost("scheduled", phases.scheduled);
  cost(
    "queue_paused",
    claimsOf(claims, "queue_paused").reduce((s, c) => s + c.waitedMs, 0),
  );
  cost(
    "queue_limit",
    claimsOf(claims, "queue_limit").reduce((s, c) => s + c.waitedMs, 0),
  );
  cost(
    "no_worker",
    claimsOf(claims, "no_worker").reduce((s, c) => s + c.waitedMs, 0),
  );
  cost("jobs_ahead", busyMs);
  if (slowRun?.above) cost("slow_run", slowRun.value - slowRun.p50);

  const index = (c: Claim | null | undefined) => (c ? claims.indexOf(c) : null);
  const decision = (event: JobEvent) => [...decisions].reverse().find((d) => d.event === event);
  let cause: CauseKind;
  let lead: number | null;
  if (totalMs === 0) {
    cause = "none";
    lead = null;
  } else if (job.state === "dead" && deadBy) {
    const gaveUp = PEOPLE.has(deadBy.actorKind) ? decision("abandon") : undefined;
    if (poison && crashed) [cause, lead] = ["poison", index(crashed)];
    else if (gaveUp) [cause, lead] = ["gave_up", index(gaveUp)];
    else if (failures && failures.failed > 0) [cause, lead] = ["failed", index(failures)];
    else if (lost.length) [cause, lead] = ["lost_attempt", index(lost.at(-1))];
    else [cause, lead] = ["failed", index(failures)];
  } else if ((job.state === "cancelled" || job.state === "cancelling") && decision("cancel")) {
    [cause, lead] = ["cancelled", index(decision("cancel"))];
  } else if (crashed && crashed.crashes >= CRASHES_LEAD) {
    [cause, lead] = ["crashed_workers", index(crashed)];
  } else {
    const ranked = (Object.entries(costs) as [CauseKind, number][]).sort((a, b) => b[1] - a[1]);
    const waste = ranked.reduce((s, [k, ms]) => s + (k === "slow_run" ? 0 : ms), 0);
    const [top] = ranked.find(([k, ms]) => mayLead(k, ms, totalMs)) ?? [null];
    // Usual: within its type's p95 in total, its run and its wait, and nothing happened to it that a person would want named.
    const typical = totalCompare !== null && claimsOf(claims, "compare").every((c) => !c.above);
    const stalled = (costs.queue_paused ?? 0) + (costs.queue_limit ?? 0) + (costs.no_worker ?? 0);
    const eventful =
      lost.length > 0 ||
      failedRuns.length > 0 ||
      decisions.length > 0 ||
      crashed !== null ||
      (stalled >= NAMED_FLOOR_MS && stalled >= MINOR_SHARE * totalMs);
    const running = () => ["running", index(claims.find((c) => c.kind === "phase" && c.phase === "running"))] as const;
    if (ranked.length === 0 || (!baseline && waste < 0.25 * totalMs && !eventful)) {
      [cause, lead] = running();
    } else if (typical && !eventful) {
      [cause, lead] = ["nothing_unusual", index(totalCompare)];
    } else if (!top) {
      [cause, lead] = running();
    } else {
      cause = top;
      lead = index(leadClaim(top, claims, slowRun, lost, blamedLoss, decisions));
    }
  }
  return {
    asOf,
    totalMs,
    isOngoing: timeline.isOngoing,
    isTruncated: timeline.isTruncated,
    phases,
    attempts,
    claims,
    lead,
    cause,
    costs,
  };
}

/** What a lost attempt cost: the work thrown away, its crash backoff, and the wait to be handed out again. */
export const lossCost = (l: ClaimOf<"lost_attempt">) => l.lostMs + l.heldMs + l.requeueMs;

function leadClaim(
  cause: CauseKind,
  claims: Claim[],
  slowRun: ClaimOf<"compare"> | null,
  lost: ClaimOf<"lost_attempt">[],
  blamedLoss: ClaimOf<"lost_attempt">[],
  decisions: ClaimOf<"decision">[],
): Claim | undefined {
  const phase = (p: Phase) => claims.find((c) => c.kind === "phase" && c.phase === p);
  const largest = (k: "queue_paused" | "queue_limit" | "no_worker") =>
    claims
      .filter((c): c is ClaimOf<"queue_paused"> | ClaimOf<"queue_limit"> | ClaimOf<"no_worker"> => c.kind === k)
      .reduce<Claim | undefined>((a, b) => (!a || ("waitedMs" in a && b.waitedMs > a.waitedMs) ? b : a), undefined);
  switch (cause) {
    case "lost_attempt":
      return [...(blamedLoss.length ? blamedLoss : lost)].sort((a, b) => lossCost(b) - lossCost(a))[0];
    case "slow_run":
      return slowRun ?? undefined;
    case "queue_paused":
    case "queue_limit":
    case "no_worker":
      return largest(cause);
    case "jobs_ahead":
      return claims.find((c) => c.kind === "busy");
    case "paused":
      return [...decisions].reverse().find((d) => d.event === "pause") ?? phase("paused");
    case "dead":
      return [...decisions].reverse().find((d) => d.event === "replay") ?? phase("dead");
    case "retry_backoff":
      return claims.find((c) => c.kind === "failures") ?? phase("retry_backoff");
    case "scheduled":
      return claims.find((c) => c.kind === "scheduled");
    case "claimed":
      return phase("claimed");
    default:
      return undefined;
  }
}

export function claimsOf<K extends Claim["kind"]>(claims: readonly Claim[], kind: K): ClaimOf<K>[] {
  return claims.filter((c): c is ClaimOf<K> => c.kind === kind);
}

function openStatus(state: JobState): AttemptRow["status"] {
  switch (state) {
    case "claimed":
    case "running":
    case "paused":
    case "cancelling":
      return state;
    default:
      return "ended";
  }
}

/** The attempt budget the job was submitted with (the submit event's payload). */
function submittedMax(events: readonly ExplainEvent[]): number | null {
  const submit = events.find((e) => e.event === "submit");
  const v = submit?.payload?.maxAttempts;
  return typeof v === "number" ? v : null;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
function countBy(xs: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/** Merged, sorted, non-empty intervals. */
export function mergeAll(xs: readonly Interval[]): Interval[] {
  const sorted = xs.filter((i) => i.to > i.from).sort((a, b) => a.from - b.from);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out.at(-1);
    if (last && i.from <= last.to) last.to = Math.max(last.to, i.to);
    else out.push({ from: i.from, to: i.to });
  }
  return out;
}
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of mergeAll(a))
    for (const y of mergeAll(b))
      if (Math.min(x.to, y.to) > Math.max(x.from, y.from)) out.push({ from: Math.max(x.from, y.from), to: Math.min(x.to, y.to) });
  return mergeAll(out);
}
export function subtract(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  let out = mergeAll(a);
  for (const y of mergeAll(b)) {
    out = out.flatMap((x) => {
      if (y.to <= x.from || y.from >= x.to) return [x];
      const parts: Interval[] = [];
      if (y.from > x.from) parts.push({ from: x.from, to: y.from });
      if (y.to < x.to) parts.push({ from: y.to, to: x.to });
      return parts;
    });
  }
  return out;
}
export const sum = (xs: readonly Interval[]) => mergeAll(xs).reduce((s, i) => s + (i.to - i.from), 0);

/** Nearest-rank percentile (0 < q ≤ 1), as PostgreSQL's percentile_disc; NaN for none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export type { Segment };
