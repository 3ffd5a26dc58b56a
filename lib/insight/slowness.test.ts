import { describe, expect, it } from "vitest";
import type { JobEvent, JobState } from "../fsm/table";
import {
  analyzeSlowness,
  baselineOf,
  humanizeError,
  percentile,
  type CauseKind,
  type SlownessContext,
  type SlownessEvent,
  type SlownessJob,
  type SlownessRun,
} from "./slowness";

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 29, 8, 0, 0);

/** A constructed history: events in order, and the run records they imply. */
class H {
  t = T0;
  v = 0;
  attempt = 0;
  state: JobState = "queued";
  worker = "";
  events: SlownessEvent[] = [];
  runs: SlownessRun[] = [];
  notBefore = T0;

  constructor(opts: { notBeforeMs?: number } = {}) {
    if (opts.notBeforeMs) this.notBefore = T0 + opts.notBeforeMs;
    this.push("submit", "queued", "api");
  }
  /** `after` ms on: the clock every step below moves first. */
  private at(after: number) {
    this.t += after;
    return this;
  }
  private push(event: JobEvent, to: JobState, actorKind: SlownessEvent["actorKind"], actorId = "x") {
    this.events.push({ event, toState: to, attempt: this.attempt, stateVersion: this.v++, at: new Date(this.t), actorKind, actorId });
    this.state = to;
    return this;
  }
  private close(outcome: SlownessRun["outcome"], errorClass: string | null = null, errorMessage: string | null = null) {
    const run = this.runs.at(-1)!;
    run.finishedAt = new Date(this.t);
    run.outcome = outcome;
    run.errorClass = errorClass;
    run.errorMessage = errorMessage;
    return this;
  }
  claim(after: number, w: string) {
    this.at(after);
    this.attempt++;
    this.worker = w;
    this.runs.push({ attempt: this.attempt, workerId: w, claimedAt: new Date(this.t), startedAt: null, finishedAt: null, outcome: null, errorClass: null });
    return this.push("claim", "claimed", "worker", w);
  }
  start(after = 0) {
    this.at(after);
    this.runs.at(-1)!.startedAt = new Date(this.t);
    return this.push("start", "running", "worker", this.worker);
  }
  run(wait: number, w: string) {
    return this.claim(wait, w).start(0);
  }
  finish(after: number) {
    return this.at(after).close("succeeded").push("finish", "succeeded", "worker", this.worker);
  }
  fail(after: number, cls = "UpstreamTimeout") {
    return this.at(after).close("failed", cls).push("fail", "retry_wait", "worker", this.worker);
  }
  retry(after: number) {
    return this.at(after).push("retry", "queued", "supervisor");
  }
  reclaim(after: number) {
    return this.at(after).close("lease_expired", "LeaseExpired").push("reclaim", "queued", "supervisor");
  }
  abandon(after: number, cls = "PermanentError", message: string | null = null) {
    return this.at(after).close("failed", cls, message).push("abandon", "dead", "worker", this.worker);
  }
  cancel(after: number, kind: SlownessEvent["actorKind"], who: string) {
    this.at(after);
    const to: JobState = this.state === "running" ? "cancelling" : "cancelled";
    if (this.state === "claimed" || this.state === "running") this.close("cancelled");
    return this.push("cancel", to, kind, who);
  }
  replay(after: number) {
    return this.at(after).push("replay", "queued", "operator");
  }
  pause(after: number) {
    return this.at(after).push("pause", "paused", "operator");
  }
  resume(after: number) {
    return this.at(after).push("resume", "running", "operator");
  }
  job(): SlownessJob {
    return { type: "export.tenant_data", queue: "default", tenantId: "acme", state: this.state, createdAt: new Date(T0), notBefore: new Date(this.notBefore) };
  }
  analyze(extra: Partial<SlownessContext> = {}) {
    return analyzeSlowness(this.job(), this.runs, this.events, { now: extra.now ?? this.t, ...extra });
  }
}

describe("analyzeSlowness: each cause alone", () => {
  it("queue wait, with the jobs ahead of it at submit", () => {
    const r = new H().run(50 * MIN, "w-1").finish(10 * MIN).analyze({ aheadAtSubmit: 1234 });
    expect(r.dominant).toBe("queue_wait");
    expect(r.phases.queue_wait).toBe(50 * MIN);
    expect(r.phases.running).toBe(10 * MIN);
    expect(r.totalMs).toBe(60 * MIN);
    expect(r.attempts[0]).toMatchObject({ attempt: 1, queueWaitMs: 50 * MIN, runningMs: 10 * MIN });
    expect(r.cause.kind).toBe("jobs_ahead");
    expect(r.summary).toBe("Slow because it waited in the queue for 50m of its 1h, behind 1,234 jobs of queue default at submit.");
  });

  it("scheduled delay from not_before is not queue wait", () => {
    const r = new H({ notBeforeMs: 30 * MIN }).run(32 * MIN, "w-1").finish(MIN).analyze();
    expect(r.phases.scheduled).toBe(30 * MIN);
    expect(r.phases.queue_wait).toBe(2 * MIN);
    expect(r.dominant).toBe("scheduled");
    expect(r.summary).toMatch(/^Most of its 33m was the delay it was scheduled with: 30m/);
  });

  it("running", () => {
    const r = new H().run(MIN, "w-1").finish(3 * 60 * MIN).analyze();
    expect(r.dominant).toBe("running");
    expect(r.summary).toBe("Most of its 3h 01m was running: 3h.");
  });

  it("claimed but not started", () => {
    const r = new H().claim(MIN, "w-1").start(20 * MIN).finish(MIN).analyze();
    expect(r.phases.claimed).toBe(20 * MIN);
    expect(r.dominant).toBe("claimed");
  });

  it("retry backoff, naming the errors that caused it", () => {
    const r = new H().run(0, "w-1").fail(MIN).retry(60 * MIN).run(0, "w-2").fail(MIN).retry(60 * MIN).run(0, "w-3").finish(MIN).analyze();
    expect(r.phases.retry_backoff).toBe(120 * MIN);
    expect(r.dominant).toBe("retry_backoff");
    expect(r.summary).toBe("Slow because of retry backoff after 2 upstream timeouts: 2h of its 2h 03m.");
    expect(r.attempts.map((a) => a.backoffMs)).toEqual([60 * MIN, 60 * MIN, 0]);
  });

  it("retry backoff after mixed errors lists them", () => {
    const r = new H().run(0, "w-1").fail(MIN, "UpstreamTimeout").retry(60 * MIN).run(0, "w-2").fail(MIN, "RateLimited").retry(60 * MIN).run(0, "w-3").finish(MIN).analyze();
    expect(r.summary).toContain("retry backoff after 2 failed attempts (1× UpstreamTimeout, 1× RateLimited)");
  });

  it("lost to an expired lease, naming the worker and how long it ran", () => {
    const r = new H().run(0, "w-14").reclaim(38 * MIN).run(0, "w-2").finish(5 * MIN).analyze();
    expect(r.phases.lost_to_lease).toBe(38 * MIN);
    expect(r.phases.running).toBe(5 * MIN);
    expect(r.dominant).toBe("lost_to_lease");
    expect(r.attempts[0]).toMatchObject({ outcome: "lease_expired", worker: "w-14", lostMs: 38 * MIN, runningMs: 0 });
    expect(r.summary).toBe(
      "Slow because work was lost to a worker that went silent: 38m of its 43m. Attempt 1 was lost when worker w-14 went silent; its 38m of work were thrown away.",
    );
  });

  it("paused", () => {
    const r = new H().run(0, "w-1").pause(MIN).resume(90 * MIN).finish(MIN).analyze();
    expect(r.phases.paused).toBe(90 * MIN);
    expect(r.phases.running).toBe(2 * MIN);
    expect(r.dominant).toBe("paused");
    expect(r.summary).toBe("Slow because it was paused by an operator for 1h 30m of its 1h 32m.");
  });
});

describe("analyzeSlowness: mixes and special cases", () => {
  it("the demo's slow export: backoff dominates, the lost attempt is named", () => {
    // lib/demo/seed.ts slowExport, step by step.
    const h = new H()
      .claim(52 * MIN, "w-14").start(300)
      .reclaim(38 * MIN + 40_000)
      .claim(2 * MIN, "w-03").start(300).fail(6 * MIN).retry(20 * MIN + 400)
      .claim(30_000, "w-07").start(300).fail(9 * MIN).retry(40 * MIN + 400)
      .claim(45_000, "w-05").start(300).finish(21 * MIN);
    const r = h.analyze({ aheadAtSubmit: 3 });
    expect(r.dominant).toBe("retry_backoff");
    expect(r.phases.lost_to_lease).toBe(38 * MIN + 40_000 + 300);
    expect(r.cause.kind).toBe("retry_backoff");
    expect(r.summary).toBe(
      "Slow because of retry backoff after 2 upstream timeouts: 1h of its 3h 09m. Waiting in the queue (55m 15s) and lost to expired leases (38m 40s) added to it. " +
        "Attempt 1 was lost when worker w-14 went silent; its 38m 40s of work were thrown away. It then waited 2m to be handed out again.",
    );
    // The phases account for every millisecond.
    expect(Object.values(r.phases).reduce((a, b) => a + b, 0)).toBe(h.t - T0);
  });

  it("a job still running: time so far, and what it is doing now", () => {
    const h = new H().run(2 * MIN, "w-1");
    const r = h.analyze({ now: h.t + 30 * MIN });
    expect(r.isOngoing).toBe(true);
    expect(r.totalMs).toBe(32 * MIN);
    expect(r.phases.running).toBe(30 * MIN);
    expect(r.attempts[0]!.outcome).toBe("open");
    expect(r.summary).toBe("Most of its 32m so far was running: 30m. It is still running.");
  });

  it("a replayed job: the time dead counts, and the queue wait after the replay belongs to the next attempt", () => {
    const r = new H().run(0, "w-1").abandon(MIN).replay(120 * MIN).run(MIN, "w-2").finish(MIN).analyze();
    expect(r.phases.dead).toBe(120 * MIN);
    expect(r.dominant).toBe("dead");
    expect(r.attempts[1]).toMatchObject({ attempt: 2, queueWaitMs: MIN, runningMs: MIN });
    expect(r.summary).toBe("Slow because it was dead for 2h until an operator replayed it, of its 2h 03m.");
  });

  it("a replayed job's not_before is not mistaken for a scheduled delay", () => {
    const h = new H().run(0, "w-1").abandon(MIN).replay(10 * MIN);
    // After the replay the row's not_before is the replay time, not what the submit asked for.
    h.notBefore = h.t;
    const r = h.run(MIN, "w-2").finish(MIN).analyze();
    expect(r.phases.scheduled).toBe(0);
  });

  it.each([
    { job: "waiting for its retry", h: new H().run(0, "w-1").fail(MIN), waited: 10 * MIN, dominant: "retry_backoff", says: "It is still backing off before its next attempt." },
    { job: "paused", h: new H().run(0, "w-1").pause(MIN), waited: 60 * MIN, dominant: "paused", says: "It is still paused." },
  ])("a job still $job", ({ h, waited, dominant, says }) => {
    const r = h.analyze({ now: h.t + waited });
    expect(r.dominant).toBe(dominant);
    expect(r.summary).toContain(says);
  });

  it("a job submitted this instant", () => {
    const r = new H().analyze();
    expect(r.dominant).toBeNull();
    expect(r.summary).toBe("No time has passed since it was submitted.");
  });

  it("many lost attempts are summarised, not listed", () => {
    let h = new H();
    for (let i = 1; i <= 5; i++) h = h.run(0, `w-${i}`).reclaim(MIN);
    const r = h.analyze();
    expect(r.summary.match(/was lost when/g)?.length).toBe(3);
    expect(r.summary).toContain("2 more attempts were lost the same way");
  });
});

describe("comparison with comparable jobs", () => {
  const typical = Array.from({ length: 40 }, (_, i) => new H().run(MIN, "w").finish(5 * MIN + i * 1000).analyze());
  const baseline = baselineOf("export.tenant_data jobs", typical);

  it("computes p50/p95 per phase", () => {
    expect(baseline.n).toBe(40);
    expect(baseline.phases.queue_wait).toEqual({ p50: MIN, p95: MIN });
    expect(baseline.phases.running!.p50).toBe(5 * MIN + 19_000);
    expect(baseline.phases.running!.p95).toBe(5 * MIN + 37_000);
  });

  it("says when a phase was above the p95", () => {
    const r = new H().run(30 * MIN, "w").finish(5 * MIN).analyze({ baselines: [baseline] });
    expect(r.unusual).toEqual([
      expect.objectContaining({ phase: "total", baseline: "export.tenant_data jobs" }),
      expect.objectContaining({ phase: "queue_wait", ms: 30 * MIN, p95: MIN }),
    ]);
    expect(r.summary).toContain("Unusual against export.tenant_data jobs: in total 35m (p95 6m 37s), waiting in the queue 30m (p95 1m).");
  });

  it("a typical job is not unusual, and a thin baseline is not used", () => {
    expect(new H().run(MIN, "w").finish(5 * MIN).analyze({ baselines: [baseline] }).unusual).toEqual([]);
    const thin = baselineOf("few", typical.slice(0, 5));
    expect(new H().run(30 * MIN, "w").finish(5 * MIN).analyze({ baselines: [thin] }).unusual).toEqual([]);
  });
});

describe("helpers", () => {
  it("humanizes error classes", () => {
    expect(humanizeError("UpstreamTimeout", 3)).toBe("upstream timeouts");
    expect(humanizeError("OutOfMemoryError", 1)).toBe("out of memory error");
    expect(humanizeError("OutOfMemoryError", 2)).toBe("out of memory errors");
    expect(humanizeError("connection reset", 2)).toBe("connection resets");
  });
  it("nearest-rank percentiles", () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

/**
 * Issue 14: constructed histories, each with the cause its explanation must name, for staff and in a
 * tenant's words. The baseline is 40 typical exports: a minute in the queue, about 5 min running.
 */
describe("constructed histories name their cause (issue 14)", () => {
  const typical = Array.from({ length: 40 }, (_, i) => new H().run(MIN, "w").finish(5 * MIN + i * 1000).analyze());
  const staffBase = baselineOf("export.tenant_data jobs", typical);
  const tenantBase = baselineOf("your export.tenant_data jobs", typical);
  const OPS = "ops@jobscope.dev";
  /** What a tenant must never read. */
  const INTERNAL = /lease|claim|p95|p50|worker|w-\d|@jobscope|not_before|queue default|supervisor/i;

  type Case = {
    name: string;
    history: () => H;
    ctx?: (h: H) => Partial<SlownessContext>;
    cause: CauseKind;
    staff: string | RegExp;
    tenant: string | RegExp;
  };
  const cases: Case[] = [
    {
      name: "a typical job: nothing unusual, in those words",
      history: () => new H().run(MIN, "w-1").finish(5 * MIN),
      cause: "nothing_unusual",
      staff: "Nothing unusual: it took 6m, within the usual for export.tenant_data jobs (p50 6m 19s, p95 6m 37s); most of it was running.",
      tenant: "Nothing unusual: it took 6m, about as long as your export.tenant_data jobs usually take (typically 6m 19s); most of it was running.",
    },
    {
      name: "an attempt lost to a silent worker doubled the time: the cause, though the good run was longer",
      history: () => new H().run(MIN, "w-14").reclaim(4 * MIN).run(MIN, "w-2").finish(5 * MIN + 20_000),
      // w-14's last heartbeat, 3.5 min into its attempt; the supervisor noticed only at 08:05.
      ctx: () => ({ silentAt: { 1: T0 + MIN + 3.5 * MIN } }),
      cause: "lost_attempt",
      staff:
        "Slow because work was lost to a worker that went silent: 5m of its 11m 20s. Attempt 1 was lost when worker w-14 went silent at 08:04 UTC (its last heartbeat); its 4m of work were thrown away. It then waited 1m to be handed out again. Unusual against export.tenant_data jobs: in total 11m 20s (p95 6m 37s), waiting in the queue 2m (p95 1m), lost to expired leases 4m (p95 none).",
      tenant:
        "Slow because a try was interrupted and it had to start again: 5m of its 11m 20s. Its first try stopped when the machine running it stopped responding at 08:04 UTC; its work was lost. It then waited 1m to be picked up again. Longer than usual for your export.tenant_data jobs: in total 11m 20s (usually within 6m 37s), waiting its turn 2m (usually within 1m), lost to an interrupted try 4m (usually none).",
    },
    {
      name: "a claim never started (the worker died between claim and start) says so, not 'work lost'",
      history: () => new H().claim(MIN, "w-3").reclaim(3 * MIN).run(MIN, "w-4").finish(5 * MIN),
      ctx: () => ({ silentAt: { 1: T0 + MIN + 1_000 } }),
      cause: "never_started",
      staff: /^Slow because a claim was never started: 4m of its 10m\. Attempt 1 was claimed but never started: worker w-3 went silent at 08:01 UTC \(its last heartbeat\) between claim and start\. It then waited 1m to be handed out again\. Unusual/,
      tenant: /^Slow because a try never began and it had to wait to be picked up again: 4m of its 10m\. Its first try never began: the machine that picked it up stopped responding at 08:01 UTC, before starting it\./,
    },
    {
      name: "a final run far beyond the type's p95: the run is the cause, wait and backoff contributors",
      history: () => new H().run(3 * MIN, "w-1").fail(MIN).retry(5 * MIN).run(0, "w-2").finish(120 * MIN),
      cause: "slow_run",
      staff: /^Slow because its final run took 2h, far beyond the p95 of export\.tenant_data jobs \(5m 37s\)\. Waiting in the queue \(3m\) and retry backoff \(5m\) added to it\./,
      tenant: /^Slow because the work itself took 2h this time; jobs like it usually finish their work within 5m 37s\. Waiting its turn \(3m\) and waiting to retry \(5m\) added to it\./,
    },
    {
      name: "waiting while the queue was paused: the pause and who paused it",
      history: () => new H().run(90 * MIN, "w-1").finish(5 * MIN),
      ctx: () => ({ queuePauses: [{ from: T0 + 5 * MIN, to: T0 + 85 * MIN, byKind: "operator", by: OPS }], aheadAtSubmit: 0 }),
      cause: "queue_paused",
      staff: /^Slow because queue default was paused by ops@jobscope\.dev \(operator\) from 08:05 to 09:25 UTC while it waited: 1h 20m of its 1h 35m\./,
      tenant: /^Slow because processing of jobs like it was paused by an operator from 08:05 to 09:25 UTC while it waited: 1h 20m of its 1h 35m\./,
    },
    {
      name: "no worker serving the queue for part of the wait, from the workers' history",
      history: () => new H().run(220 * MIN, "w-9").finish(5 * MIN),
      ctx: () => ({
        serving: [
          { from: T0 - 60 * MIN, to: T0 + 35 * MIN },
          { from: T0 + 215 * MIN, to: T0 + 400 * MIN },
        ],
        aheadAtSubmit: 12,
        aheadOwn: 2,
      }),
      cause: "no_worker",
      staff:
        /^Slow because no worker was serving queue default from 08:35 to 11:35 UTC while it waited: 3h of its 3h 45m\. It was behind 12 jobs of queue default at submit \(2 of acme's, 10 of other tenants'\)\./,
      tenant: /^Slow because nothing was available to run jobs like it from 08:35 to 11:35 UTC while it waited: 3h of its 3h 45m\. It was behind 12 jobs submitted before it \(2 yours, 10 other customers'\)\./,
    },
    {
      name: "jobs ahead, a capped count read as a bound, split into the tenant's own and others'",
      history: () => new H().run(50 * MIN, "w-1").finish(5 * MIN),
      ctx: () => ({ aheadAtSubmit: 5_000, aheadCapped: true, aheadOwn: 2_000 }),
      cause: "jobs_ahead",
      staff: /^Slow because it waited in the queue for 50m of its 55m, behind at least 5,000 jobs of queue default at submit \(at least 2,000 of acme's, at least 3,000 of other tenants'\)\./,
      tenant: /^Slow because it waited for its turn for 50m of its 55m, behind at least 5,000 jobs submitted before it \(at least 2,000 yours, at least 3,000 other customers'\)\./,
    },
    {
      name: "retry backoff after failures, with the errors",
      history: () => new H().run(MIN, "w-1").fail(MIN).retry(60 * MIN).run(0, "w-2").finish(5 * MIN),
      cause: "retry_backoff",
      staff: /^Slow because of retry backoff after 1 upstream timeout: 1h of its 1h 07m\./,
      tenant: /^Slow because of waiting to retry after 1 upstream timeout: 1h of its 1h 07m\./,
    },
    {
      name: "a dead job leads with why it failed and what can be done",
      history: () => new H().run(MIN, "w-1").fail(MIN).retry(MIN).run(0, "w-2").abandon(MIN, "PermanentError", "invalid customer id 42"),
      cause: "retry_backoff",
      staff: /^It failed after 2 attempts; the last one ended with PermanentError: invalid customer id 42\. /,
      tenant: /^It failed after 2 tries; the last one ended with PermanentError: invalid customer id 42\. /,
    },
    {
      name: "a cancelled job says who cancelled it: a person for staff, a role for the tenant",
      history: () => new H().cancel(10 * MIN, "operator", OPS),
      cause: "queue_wait",
      staff: /^It was cancelled by ops@jobscope\.dev \(operator\) at 08:10 UTC\. Slow because it waited in the queue for 10m of its 10m\./,
      tenant: /^It was cancelled by an operator at 08:10 UTC\. Slow because it waited for its turn for 10m of its 10m\./,
    },
    {
      name: "a running job: how long so far against the usual",
      history: () => new H().run(MIN, "w-1"),
      ctx: (h) => ({ now: h.t + 20 * MIN }),
      cause: "slow_run",
      staff:
        /^It has taken 21m so far, already longer than usual: export\.tenant_data jobs take 6m 19s at the median \(p95 6m 37s\)\. Slow because its current run has taken 20m so far, /,
      tenant:
        /^It has taken 21m so far, already longer than usual: jobs like it usually take 6m 19s \(95 of 100 within 6m 37s\)\. Slow because the work itself has taken 20m so far this time; /,
    },
    {
      name: "a scheduled delay is what the submit asked for",
      history: () => new H({ notBeforeMs: 60 * MIN }).run(61 * MIN, "w-1").finish(5 * MIN),
      cause: "scheduled",
      staff: /^Most of its 1h 06m was the delay it was scheduled with: 1h \(not_before\)\./,
      tenant: /^Most of its 1h 06m was the delay it was scheduled with: 1h\./,
    },
    {
      name: "paused by an operator",
      history: () => new H().run(MIN, "w-1").pause(MIN).resume(60 * MIN).finish(4 * MIN),
      cause: "paused",
      staff: /^Slow because it was paused by an operator for 1h of its 1h 06m\./,
      tenant: /^Slow because it was paused by an operator for 1h of its 1h 06m\./,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const h = c.history();
      const extra = c.ctx?.(h) ?? {};
      const staff = h.analyze({ baselines: [staffBase], ...extra });
      const tenant = h.analyze({ baselines: [tenantBase], ...extra, audience: "tenant" });
      expect(staff.cause.kind).toBe(c.cause);
      expect(tenant.cause.kind).toBe(c.cause);
      if (typeof c.staff === "string") expect(staff.summary).toBe(c.staff);
      else expect(staff.summary).toMatch(c.staff);
      if (typeof c.tenant === "string") expect(tenant.summary).toBe(c.tenant);
      else expect(tenant.summary).toMatch(c.tenant);
      // Tenant wording: no internal terms, no worker ids, no staff e-mail addresses.
      expect(tenant.summary).not.toMatch(INTERNAL);
      if (tenant.next) expect(tenant.next).not.toMatch(INTERNAL);
      // One set of phase totals: they add up to the total, and every "unusual" tag is read from them.
      expect(Object.values(staff.phases).reduce((a, b) => a + b, 0)).toBe(staff.totalMs);
      for (const u of staff.unusual) expect(u.ms).toBe(u.phase === "total" ? staff.totalMs : staff.phases[u.phase]);
      expect(tenant.phases).toEqual(staff.phases);
    });
  }

  it("the time a lease was lost is the worker's last heartbeat, not when the supervisor noticed", () => {
    const h = new H().run(0, "w-14").reclaim(10 * MIN).run(0, "w-2").finish(MIN);
    const r = h.analyze({ silentAt: { 1: T0 + 7 * MIN } });
    expect(r.attempts[0]!.silentAt).toBe(T0 + 7 * MIN);
    expect(r.summary).toContain("went silent at 08:07 UTC (its last heartbeat)");
    // A heartbeat outside the attempt (the worker id seen again later) is not taken for it.
    expect(h.analyze({ silentAt: { 1: T0 + 30 * MIN } }).attempts[0]!.silentAt).toBeNull();
  });

  it("a dead job whose workers kept going silent says to look at its params", () => {
    const h = new H().run(0, "w-1").reclaim(MIN).run(0, "w-2").reclaim(MIN).run(0, "w-3").abandon(MIN, "LeaseExpired", "no heartbeat");
    const r = h.analyze();
    expect(r.lead).toBe("It failed after 3 attempts; the last one ended with LeaseExpired: no heartbeat.");
    expect(r.next).toMatch(/went silent on it 2 times: look at its params/);
    expect(h.analyze({ audience: "tenant" }).next).toMatch(/^Contact support/);
  });

  it("clock times follow the viewer's time zone, named by its offset", () => {
    const h = new H().cancel(10 * MIN, "operator", OPS);
    expect(h.analyze({ timeZone: "UTC" }).lead).toBe("It was cancelled by ops@jobscope.dev (operator) at 08:10 UTC.");
    expect(h.analyze({ timeZone: "America/New_York" }).lead).toBe("It was cancelled by ops@jobscope.dev (operator) at 03:10 GMT-5.");
    expect(h.analyze({ timeZone: "Asia/Kolkata" }).lead).toBe("It was cancelled by ops@jobscope.dev (operator) at 13:40 GMT+5:30.");
    const paused = new H().run(90 * MIN, "w-1").finish(5 * MIN);
    const pause = { queuePauses: [{ from: T0 + 5 * MIN, to: T0 + 85 * MIN, byKind: "operator" as const, by: OPS }], aheadAtSubmit: 0 };
    expect(paused.analyze({ ...pause, timeZone: "Europe/Berlin" }).summary).toMatch(/from 09:05 to 10:25 GMT\+1 while it waited/);
  });
});
