import { describe, expect, it } from "vitest";
import type { JobEvent, JobState } from "../fsm/table";
import { analyzeSlowness, baselineOf, humanizeError, percentile, type SlownessEvent, type SlownessJob, type SlownessRun } from "./slowness";

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
  private push(event: JobEvent, to: JobState, actorKind: SlownessEvent["actorKind"], actorId = "x") {
    this.events.push({ event, toState: to, attempt: this.attempt, stateVersion: this.v++, at: new Date(this.t), actorKind, actorId });
    this.state = to;
  }
  private close(outcome: SlownessRun["outcome"], errorClass: string | null = null) {
    const run = this.runs.at(-1)!;
    run.finishedAt = new Date(this.t);
    run.outcome = outcome;
    run.errorClass = errorClass;
  }
  claim(after: number, w: string) {
    this.t += after;
    this.attempt++;
    this.worker = w;
    this.runs.push({ attempt: this.attempt, workerId: w, claimedAt: new Date(this.t), startedAt: null, finishedAt: null, outcome: null, errorClass: null });
    this.push("claim", "claimed", "worker", w);
    return this;
  }
  start(after = 0) {
    this.t += after;
    this.runs.at(-1)!.startedAt = new Date(this.t);
    this.push("start", "running", "worker", this.worker);
    return this;
  }
  run(wait: number, w: string) {
    return this.claim(wait, w).start(0);
  }
  finish(after: number) {
    this.t += after;
    this.close("succeeded");
    this.push("finish", "succeeded", "worker", this.worker);
    return this;
  }
  fail(after: number, cls = "UpstreamTimeout") {
    this.t += after;
    this.close("failed", cls);
    this.push("fail", "retry_wait", "worker", this.worker);
    return this;
  }
  retry(after: number) {
    this.t += after;
    this.push("retry", "queued", "supervisor");
    return this;
  }
  reclaim(after: number) {
    this.t += after;
    this.close("lease_expired", "LeaseExpired");
    this.push("reclaim", "queued", "supervisor");
    return this;
  }
  abandon(after: number) {
    this.t += after;
    this.close("failed", "PermanentError");
    this.push("abandon", "dead", "worker", this.worker);
    return this;
  }
  replay(after: number) {
    this.t += after;
    this.push("replay", "queued", "operator");
    return this;
  }
  pause(after: number) {
    this.t += after;
    this.push("pause", "paused", "operator");
    return this;
  }
  resume(after: number) {
    this.t += after;
    this.push("resume", "running", "operator");
    return this;
  }
  job(): SlownessJob {
    return { type: "export.tenant_data", queue: "default", state: this.state, createdAt: new Date(T0), notBefore: new Date(this.notBefore) };
  }
  analyze(extra: { now?: number; aheadAtSubmit?: number | null; baselines?: Parameters<typeof analyzeSlowness>[3]["baselines"] } = {}) {
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
    expect(r.summary).toBe("83% of 1h was waiting in the queue (behind 1,234 jobs of queue default at submit).");
  });

  it("scheduled delay from not_before is not queue wait", () => {
    const r = new H({ notBeforeMs: 30 * MIN }).run(32 * MIN, "w-1").finish(MIN).analyze();
    expect(r.phases.scheduled).toBe(30 * MIN);
    expect(r.phases.queue_wait).toBe(2 * MIN);
    expect(r.dominant).toBe("scheduled");
    expect(r.summary).toMatch(/^91% of 33m was the delay it was scheduled with/);
  });

  it("running", () => {
    const r = new H().run(MIN, "w-1").finish(3 * 60 * MIN).analyze();
    expect(r.dominant).toBe("running");
    expect(r.summary).toBe("99% of 3h 01m was running.");
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
    expect(r.summary).toBe("98% of 2h 03m was retry backoff after 2 upstream timeouts.");
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
      "88% of 43m was work lost to expired leases (the worker stopped heartbeating); attempt 1 was lost when worker w-14 stopped heartbeating after 38m.",
    );
  });

  it("paused", () => {
    const r = new H().run(0, "w-1").pause(MIN).resume(90 * MIN).finish(MIN).analyze();
    expect(r.phases.paused).toBe(90 * MIN);
    expect(r.phases.running).toBe(2 * MIN);
    expect(r.dominant).toBe("paused");
    expect(r.summary).toMatch(/^98% of 1h 32m was paused by an operator\.$/);
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
    expect(r.summary).toMatch(/^32% of 3h 09m was retry backoff after 2 upstream timeouts; 29% was waiting in the queue \(behind 3 jobs of queue default at submit\); attempt 1 was lost when worker w-14 stopped heartbeating after 38m 40s\.$/);
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
    expect(r.summary).toBe("94% of 32m so far was running. It is still running.");
  });

  it("a job still waiting for its retry", () => {
    const h = new H().run(0, "w-1").fail(MIN);
    const r = h.analyze({ now: h.t + 10 * MIN });
    expect(r.dominant).toBe("retry_backoff");
    expect(r.summary).toContain("It is still backing off before its next attempt.");
  });

  it("a replayed job: the time dead counts, and the queue wait after the replay belongs to the next attempt", () => {
    const r = new H().run(0, "w-1").abandon(MIN).replay(120 * MIN).run(MIN, "w-2").finish(MIN).analyze();
    expect(r.phases.dead).toBe(120 * MIN);
    expect(r.dominant).toBe("dead");
    expect(r.attempts[1]).toMatchObject({ attempt: 2, queueWaitMs: MIN, runningMs: MIN });
    expect(r.summary).toMatch(/^98% of 2h 03m was dead, until an operator replayed it\.$/);
  });

  it("a replayed job's not_before is not mistaken for a scheduled delay", () => {
    const h = new H().run(0, "w-1").abandon(MIN).replay(10 * MIN);
    // After the replay the row's not_before is the replay time, not what the submit asked for.
    h.notBefore = h.t;
    const r = h.run(MIN, "w-2").finish(MIN).analyze();
    expect(r.phases.scheduled).toBe(0);
  });

  it("a paused job that is still paused", () => {
    const h = new H().run(0, "w-1").pause(MIN);
    const r = h.analyze({ now: h.t + 60 * MIN });
    expect(r.dominant).toBe("paused");
    expect(r.summary).toContain("It is still paused.");
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
