import { describe, expect, it } from "vitest";
import type { ActorKind, JobEvent, JobState } from "../fsm/table";
import type { AttemptRow, Baseline, Claim } from "./claims";
import { claimsOf, emptyContext, explain, type ExplainContext, type ExplainEvent, type ExplainJob, type ExplainRun } from "./explain";
import { humanizeError, render } from "./render";

const MIN = 60_000;
const SEC = 1_000;
const T0 = Date.UTC(2026, 10, 29, 8, 0, 0);

/** A constructed history: events in order, and the run records they imply. */
class H {
  t = T0;
  v = 0;
  attempt = 0;
  max: number;
  state: JobState = "queued";
  worker = "";
  events: ExplainEvent[] = [];
  runs: ExplainRun[] = [];
  notBefore = T0;

  constructor(opts: { notBeforeMs?: number; maxAttempts?: number } = {}) {
    this.max = opts.maxAttempts ?? 3;
    if (opts.notBeforeMs) this.notBefore = T0 + opts.notBeforeMs;
    this.push("submit", "queued", "api", "key-1", { maxAttempts: this.max });
  }
  private at(after: number) {
    this.t += after;
    return this;
  }
  private push(event: JobEvent, to: JobState, actorKind: ActorKind, actorId = "x", payload: Record<string, unknown> | null = null) {
    this.events.push({ event, toState: to, attempt: this.attempt, stateVersion: this.v++, at: new Date(this.t), actorKind, actorId, payload });
    this.state = to;
    return this;
  }
  private close(outcome: ExplainRun["outcome"], errorClass: string | null = null, errorMessage: string | null = null) {
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
    this.runs.push({
      attempt: this.attempt,
      workerId: w,
      claimedAt: new Date(this.t),
      startedAt: null,
      finishedAt: null,
      outcome: null,
      errorClass: null,
      errorMessage: null,
    });
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
  fail(after: number, cls = "UpstreamTimeout", message = "POST /sync timed out") {
    return this.at(after).close("failed", cls, message).push("fail", "retry_wait", "worker", this.worker);
  }
  retry(after: number) {
    return this.at(after).push("retry", "queued", "supervisor", "sup-1");
  }
  /** The supervisor reclaims it, holding it back `heldMs` (its crash backoff), as its payload records. */
  reclaim(after: number, heldMs = 0) {
    this.at(after).close("lease_expired", "LeaseExpired");
    const heldUntil = new Date(this.t + heldMs).toISOString();
    return this.push("reclaim", "queued", "supervisor", "sup-1", { crash: { worker: this.worker, blamed: null, crashes: 1, heldUntil } });
  }
  rescue(after: number, blamed: string) {
    this.max++;
    return this.at(after)
      .close("lease_expired", "WorkerLost")
      .push("rescue", "queued", "supervisor", "sup-1", {
        crash: { worker: this.worker, blamed: { jobId: blamed, type: "poison.crash" }, crashes: null },
      });
  }
  abandonBySupervisor(after: number, cls = "LeaseExpired") {
    return this.at(after).close("lease_expired", cls).push("abandon", "dead", "supervisor", "sup-1");
  }
  giveUp(after: number, cls = "UpstreamTimeout") {
    return this.at(after).close("failed", cls, "POST /sync timed out").push("abandon", "dead", "worker", this.worker);
  }
  operator(after: number, event: JobEvent, to: JobState, who = "ops@jobscope.dev") {
    if (event === "replay") this.max = Math.max(this.max, this.attempt + 1);
    return this.at(after).push(event, to, "operator", who);
  }
  cancelByTenant(after: number, who = "dana@acme.example") {
    return this.at(after).push("cancel", this.state === "running" ? "cancelling" : "cancelled", "tenant", who);
  }
  job(): ExplainJob {
    return {
      id: "00000000-0000-7000-8000-000000000001",
      type: "export.tenant_data",
      queue: "exports",
      tenantId: "acme",
      state: this.state,
      attempt: this.attempt,
      maxAttempts: this.max,
      createdAt: new Date(T0),
      notBefore: new Date(this.notBefore),
    };
  }
  explain(extra: Partial<ExplainContext> = {}) {
    return explain(this.job(), this.runs, this.events, { ...emptyContext(this.t), ...extra });
  }
  words(extra: Partial<ExplainContext> = {}, audience: "staff" | "tenant" = "staff") {
    const ex = this.explain(extra);
    return { ex, ...render(ex, this.job(), { audience }) };
  }
}

const baseline = (
  o: { total?: [number, number]; run?: [number, number]; wait?: [number, number]; n?: number; tenantId?: string | null } = {},
): Baseline => ({
  scope: { type: "export.tenant_data", tenantId: o.tenantId === undefined ? "acme" : o.tenantId, from: T0 - 7 * 24 * 60 * MIN, to: T0 },
  n: o.n ?? 200,
  total: o.total ? { p50: o.total[0], p95: o.total[1] } : null,
  run: o.run ? { p50: o.run[0], p95: o.run[1] } : null,
  wait: o.wait ? { p50: o.wait[0], p95: o.wait[1] } : null,
  input: null,
});

/** Every number a sentence quotes as beyond a p95 really is beyond it (the claim the words came from). */
function assertHonest(claims: readonly Claim[]) {
  for (const c of claimsOf(claims, "compare")) expect(c.above).toBe(c.value > c.p95);
}

describe("the ten kinds of wrong sentence seen on live histories", () => {
  it("a dead export that timed out five times leads with its failures, not with a slow run it did not have", () => {
    // Runs of 12–28 s, each an upstream timeout; its type's runs take 1m 26s at p95.
    const h = new H({ maxAttempts: 5 });
    const runs = [12, 20, 28, 15, 26];
    runs.forEach((s, i) => {
      h.run(2 * SEC, `w-${i}`);
      if (i < 4) h.fail(s * SEC).retry(30 * SEC * 2 ** i);
      else h.giveUp(s * SEC);
    });
    const ctx = { baselines: [baseline({ total: [2 * MIN, 4 * MIN], run: [40 * SEC, 86 * SEC] })] };
    const staff = h.words(ctx);
    expect(staff.ex.cause).toBe("failed");
    expect(staff.summary).toMatch(
      /^It failed 5 times \(upstream timeouts\); its attempts ran out \(5 of 5\), so it was given up\. The last ended with UpstreamTimeout: POST \/sync timed out\./,
    );
    expect(staff.summary).not.toMatch(/p95|beyond|slow because its/i);
    assertHonest(staff.ex.claims);
    const tenant = h.words(ctx, "tenant");
    expect(tenant.summary).toMatch(/^It failed 5 times \(upstream timeouts\); its tries ran out \(5 of 5\)/);
  });

  it("a job an operator gave up during its retry wait says so, with the attempts it had left", () => {
    const h = new H({ maxAttempts: 5 })
      .run(SEC, "w-1")
      .fail(20 * SEC)
      .operator(2 * 60 * MIN, "abandon", "dead");
    const { ex, summary, next } = h.words();
    expect(ex.cause).toBe("gave_up");
    expect(summary).toMatch(
      /^It was given up by ops@jobscope\.dev \(operator\) at 10:00 UTC while it was waiting to retry, with 4 of 5 attempts left\. Before that, 1 attempt failed \(upstream timeout\)\./,
    );
    expect(summary).not.toMatch(/slow because/i);
    expect(next).toMatch(/replay/);
    const tenant = h.words({}, "tenant");
    expect(tenant.summary).toMatch(/^It was given up by an operator at 10:00 UTC while it was waiting to retry, with 4 of 5 tries left\./);
  });

  it("a job that crashed three workers is never 'nothing unusual', and its tenant is not told it waited its turn", () => {
    const h = new H({ maxAttempts: 3 })
      .run(SEC, "w-1")
      .reclaim(31 * SEC)
      .run(SEC, "w-2")
      .reclaim(31 * SEC)
      .run(SEC, "w-3")
      .abandonBySupervisor(31 * SEC, "PoisonJob");
    const ctx = { baselines: [baseline({ total: [10 * MIN, 20 * MIN] })], crashedWorkers: { crashes: 3, tookDown: 7 } };
    const staff = h.words(ctx);
    expect(staff.ex.cause).toBe("poison");
    expect(staff.summary).toMatch(
      /^It crashed the worker process running it 3 times \(it was the job blamed each time\), so it was stopped as a poison job and is not handed out again; those crashes took 7 other jobs down with it/,
    );
    const tenant = h.words({ ...ctx, crashedWorkers: { crashes: 3, tookDown: null } }, "tenant");
    expect(tenant.summary).toMatch(/^It stopped the machine running it 3 times, so it was stopped/);
    expect(tenant.summary).not.toMatch(/poison|worker|other jobs|slow because/i);
    // A job that crashed its workers twice and then succeeded leads with that, whatever its total.
    const survivor = new H({ maxAttempts: 5 })
      .run(SEC, "w-1")
      .reclaim(31 * SEC)
      .run(SEC, "w-2")
      .reclaim(31 * SEC)
      .run(SEC, "w-3")
      .finish(10 * SEC);
    const s = survivor.words({ ...ctx, crashedWorkers: { crashes: 2, tookDown: 0 } });
    expect(s.ex.cause).toBe("crashed_workers");
    expect(s.summary).not.toMatch(/nothing unusual/i);
  });

  it("a stretch the workers table shows without a worker is only 'no worker' when the context says so; the context drops stretches with claims (lib/insight/context.test.ts)", () => {
    const h = new H().run(30 * MIN, "w-1").finish(MIN);
    const without = h.words({ ahead: { n: 3, capped: false, own: 1 } });
    expect(without.ex.cause).toBe("jobs_ahead");
    expect(without.summary).not.toMatch(/no worker/);
    const withGap = h.words({ noWorker: [{ from: T0 + 5 * MIN, to: T0 + 25 * MIN }] });
    expect(withGap.ex.cause).toBe("no_worker");
    expect(withGap.summary).toMatch(
      /no worker was serving queue exports from 08:05 to 08:25 UTC \(no job of it was claimed then\) while it waited: 20m/,
    );
  });

  it("a job waiting in a paused queue says the queue is paused — from its first second, and 'still paused' while it is", () => {
    const h = new H();
    const paused = {
      pauses: [{ from: T0 - 5 * MIN, to: null, by: { kind: "operator" as const, id: "ops@jobscope.dev" } }],
      ahead: { n: 13, capped: false, own: 13 },
    };
    h.t = T0 + 30 * SEC;
    const early = h.words(paused);
    expect(early.ex.cause).toBe("queue_paused");
    expect(early.summary).toMatch(
      /^Slow because queue exports was paused by ops@jobscope\.dev \(operator\) since 07:55 UTC, and is still paused while it waited: 30s of its 30s so far\./,
    );
    expect(early.summary).not.toMatch(/from 07:55 to/);
    expect(early.summary).toMatch(/It is still waiting: queue exports is paused\.$/);
    // Once resumed and claimed, the pause is written with its end.
    const done = new H()
      .run(20 * MIN, "w-1")
      .finish(MIN)
      .words({ pauses: [{ from: T0 - 5 * MIN, to: T0 + 19 * MIN, by: { kind: "operator", id: "ops@jobscope.dev" } }] });
    expect(done.summary).toMatch(/paused by ops@jobscope\.dev \(operator\) from 07:55 to 08:19 UTC while it waited: 19m/);
    expect(
      new H()
        .run(20 * MIN, "w-1")
        .finish(MIN)
        .words({ pauses: [{ from: T0 - 5 * MIN, to: T0 + 19 * MIN, by: { kind: "operator", id: "" } }] }, "tenant").summary,
    ).toMatch(/processing of jobs like it was paused by an operator from 07:55 to 08:19 UTC/);
  });

  it("a job starved by its queue's concurrency limit says so, not 'behind n jobs'", () => {
    const h = new H().run(40 * MIN, "w-1").finish(MIN);
    const { ex, summary } = h.words({ full: [{ from: T0 + 2 * MIN, to: T0 + 40 * MIN, limit: 3 }], ahead: { n: 39, capped: false, own: 39 } });
    expect(ex.cause).toBe("queue_limit");
    expect(summary).toMatch(
      /^Slow because queue exports was at its concurrency limit \(3 at work at once\) from 08:02 to 08:40 UTC while it waited: 38m of its 41m\./,
    );
  });

  it("a job dead until replayed says what killed it and who replayed it, and quotes no empty percentile", () => {
    const h = new H({ maxAttempts: 1 })
      .run(SEC, "w-1")
      .giveUp(5 * SEC, "PermanentError")
      .operator(77 * MIN, "replay", "queued")
      .run(SEC, "w-2")
      .finish(2 * SEC);
    const { ex, summary } = h.words({ baselines: [baseline({ total: [30 * SEC, 90 * SEC] })] });
    expect(ex.cause).toBe("dead");
    expect(summary).toMatch(
      /^Slow because it stayed dead for all but 9\.0s of its 1h 17m, until ops@jobscope\.dev \(operator\) replayed it at 09:17 UTC\. It had died after attempt 1 failed with PermanentError: POST \/sync timed out\./,
    );
    expect(summary).not.toMatch(/none|0ms/);
  });

  it("a job an operator gave up during its backoff, then replayed, says who gave it up, not that its attempt killed it", () => {
    const h = new H({ maxAttempts: 3 })
      .run(SEC, "w-1")
      .fail(5 * SEC)
      .operator(30 * MIN, "abandon", "dead")
      .operator(3 * 60 * MIN, "replay", "queued", "operator@jobscope.local");
    const { ex, summary } = h.words();
    expect(ex.cause).toBe("dead");
    expect(summary).toMatch(
      /^Slow because it stayed dead for 3h of its 3h 30m so far, until operator@jobscope\.local \(operator\) replayed it at 11:30 UTC\. It had been given up by ops@jobscope\.dev \(operator\) at 08:30 UTC while it was waiting to retry, after attempt 1 failed with UpstreamTimeout: POST \/sync timed out\./,
    );
    expect(summary).not.toMatch(/It had died/);
    expect(h.words({}, "tenant").summary).toMatch(
      /It had been stopped by an operator at 08:30 UTC while it was waiting to retry, after its first try failed/,
    );
  });

  it("says who paused the job itself", () => {
    const h = new H()
      .run(SEC, "w-1")
      .operator(MIN, "pause", "paused")
      .operator(90 * MIN, "resume", "running")
      .finish(MIN);
    const { ex, summary } = h.words();
    expect(ex.cause).toBe("paused");
    expect(summary).toMatch(/^Slow because it was paused by ops@jobscope\.dev \(operator\) at 08:01 UTC: 1h 30m of its 1h 32m\./);
  });

  it("when a worker went silent and the job ran again from the start, the lead is the lost work, not the final run, and its crash backoff is named", () => {
    const h = new H()
      .run(SEC, "w-14")
      // Blamed for the crash (it was alone on the worker), it was held back 90 s before it could be claimed again.
      .reclaim(25 * MIN, 90 * SEC)
      .run(2 * MIN, "w-2")
      .finish(8 * MIN);
    const { ex, summary } = h.words({
      baselines: [baseline({ total: [5 * MIN, 9 * MIN], run: [5 * MIN, 7 * MIN] })],
      crashes: { 1: { silentAt: T0 + 20 * MIN, blamedOn: null, refunded: false } },
    });
    expect(ex.cause).toBe("lost_attempt");
    expect(summary).toMatch(
      /^Slow because work was lost with a worker that went silent: 27m of its 35m 01s\. Attempt 1 was lost when worker w-14 went silent at 08:20 UTC \(its last heartbeat\); its 25m of work were thrown away\. It was then held back 1m 30s: the backoff of a job blamed for its worker's crash\. It then waited 30s to be handed out again\./,
    );
    assertHonest(ex.claims);
    // Its own run (8m) is beyond the p95 (7m), and is said as such, beside the lead.
    expect(summary).toMatch(
      /Longer than usual for acme's export\.tenant_data jobs that succeeded in the 7 days before it was submitted: in total 35m 01s \(p95 9m\), its run 8m \(p95 7m\)\./,
    );
  });

  it("several lost tries are told in the order they happened", () => {
    const h = new H({ maxAttempts: 5 })
      .run(SEC, "w-1")
      .reclaim(10 * SEC)
      .run(SEC, "w-2")
      .reclaim(12 * SEC)
      .run(SEC, "w-3")
      .reclaim(14 * SEC)
      .run(SEC, "w-4")
      .finish(SEC);
    const { ex, summary } = h.words({}, "tenant");
    expect(ex.cause).toBe("lost_attempt");
    const first = summary.indexOf("Its first try");
    const second = summary.indexOf("Its second try");
    const third = summary.indexOf("Its third try");
    expect([first, second, third].every((i) => i > 0)).toBe(true);
    expect(first < second && second < third).toBe(true);
    // Each told once.
    expect(summary.split("Its third try").length).toBe(2);
  });

  it("a bystander of another job's crash says whose crash it was and that its attempt was refunded", () => {
    const h = new H({ maxAttempts: 1 })
      .run(SEC, "w-3")
      .rescue(40 * SEC, "0199aaaa-0000-7000-8000-0000000000ff")
      .run(SEC, "w-4")
      .finish(20 * SEC);
    const ctx = {
      crashes: {
        1: { silentAt: null, blamedOn: { jobId: "0199aaaa-0000-7000-8000-0000000000ff", type: "poison.crash" }, refunded: true },
      },
    };
    const staff = h.words(ctx);
    expect(staff.summary).toMatch(
      /Attempt 1 was lost when worker w-3 died in a crash blamed on job 0199aaaa-0000-7000-8000-0000000000ff \(poison\.crash\); its 40s of work were thrown away\. The attempt was refunded/,
    );
    const tenant = h.words({ crashes: { 1: { ...ctx.crashes[1], blamedOn: null } } }, "tenant");
    expect(tenant.summary).toMatch(/This did not count against its tries\./);
    expect(tenant.summary).not.toMatch(/0199aaaa|poison|worker|w-3/);
  });
});

describe("what the tenant reads", () => {
  it("says how many jobs were ahead, never how many were other customers'", () => {
    const h = new H().run(50 * MIN, "w-1").finish(10 * MIN);
    const ctx = { ahead: { n: 75, capped: false, own: null }, skipped: { n: 4, capped: false, morePriority: 4, otherTenants: null } };
    const { ex, summary } = h.words(ctx, "tenant");
    expect(ex.cause).toBe("jobs_ahead");
    expect(summary).toBe(
      "Slow because it waited its turn for 50m of its 1h: 75 jobs were waiting ahead of it when it was submitted; 4 submitted after it were started first (4 more urgent). Of its 1h: 50m waiting its turn, 10m running.",
    );
    const staff = h.words({ ahead: { n: 75, capped: false, own: 12 }, skipped: { n: 4, capped: false, morePriority: 1, otherTenants: 3 } });
    expect(staff.summary).toMatch(
      /75 jobs were waiting ahead of it when it was submitted \(12 of them its tenant's\); 4 submitted after it were started first \(1 more urgent, 3 other tenants' taking their turn on a fair queue\)/,
    );
  });

  it("a cancelled job leads with who cancelled it", () => {
    const h = new H().run(SEC, "w-1").cancelByTenant(5 * MIN);
    expect(h.words({}, "tenant").summary).toMatch(
      /^It was cancelled by someone on your account \(dana@acme\.example\) at 08:05 UTC while it was running; it stops at its next checkpoint\./,
    );
    expect(h.words().summary).toMatch(/^It was cancelled by dana@acme\.example \(the customer\)/);
  });
});

describe("comparisons", () => {
  it("compares like with like: a run with runs, a total with totals, and only says 'beyond' what is", () => {
    const h = new H().run(10 * SEC, "w-1").finish(3 * MIN);
    const { ex, summary } = h.words({ baselines: [baseline({ total: [MIN, 2 * MIN], run: [40 * SEC, 90 * SEC], wait: [5 * SEC, 20 * SEC] })] });
    expect(ex.cause).toBe("slow_run");
    expect(claimsOf(ex.claims, "compare").map((c) => [c.metric, c.value, c.above])).toEqual([
      ["total", 3 * MIN + 10 * SEC, true],
      ["run", 3 * MIN, true],
      ["wait", 10 * SEC, false],
    ]);
    expect(summary).toMatch(
      /^Slow because its run took 3m, more than the p95 of acme's export\.tenant_data jobs that succeeded in the 7 days before it was submitted \(1m 30s; median 40s\)\./,
    );
  });

  it("a wait too small to name beside the lead is not the lead: a long total is its run's, not 2 ms in the queue", () => {
    const h = new H().run(2, "w-1").finish(39 * SEC);
    const { ex, summary } = h.words({ baselines: [baseline({ total: [10 * SEC, 20 * SEC] })] });
    expect(ex.costs.jobs_ahead).toBe(2);
    expect(ex.cause).toBe("running");
    // 2 ms short of the whole, which "39s of its 39s" would not say.
    expect(summary).toMatch(/^All but 2ms of its 39s was running\. Longer than usual/);
    // Once the same wait is a real share of the total, it leads.
    const waited = new H()
      .run(30 * SEC, "w-1")
      .finish(9 * SEC)
      .words({ baselines: [baseline({ total: [10 * SEC, 20 * SEC] })] });
    expect(waited.ex.cause).toBe("jobs_ahead");
    expect(waited.summary).toMatch(/^Slow because it waited its turn in the queue for 30s of its 39s/);
  });

  it("a part that reads as the whole once rounded is said by what it leaves out, and a part that is the whole as it is", () => {
    // 10h 30m 10s in the queue of 10h 30m 40s: both read "10h 30m".
    const long = new H()
      .run((10 * 60 + 30) * MIN + 10 * SEC, "w-1")
      .finish(30 * SEC)
      .words({ ahead: { n: 15, capped: false, own: null } });
    expect(long.ex.cause).toBe("jobs_ahead");
    expect(long.summary).toMatch(/^Slow because it waited its turn in the queue for all but 30s of its 10h 30m: 15 jobs were waiting ahead/);
    const tenant = new H()
      .run((10 * 60 + 30) * MIN + 10 * SEC, "w-1")
      .finish(30 * SEC)
      .words({ ahead: { n: 15, capped: false, own: null } }, "tenant");
    expect(tenant.summary).toMatch(/^Slow because it waited its turn for all but 30s of its 10h 30m:/);
    // Where the rounded part differs from the rounded whole, it is said as it is.
    const short = new H()
      .run(10 * 60 * MIN, "w-1")
      .finish(2 * MIN)
      .words({ ahead: { n: 15, capped: false, own: null } });
    expect(short.summary).toMatch(/^Slow because it waited its turn in the queue for 10h of its 10h 02m:/);
  });

  it("a typical job is 'nothing unusual'; a thin sample is not used", () => {
    const h = new H().run(10 * SEC, "w-1").finish(MIN);
    expect(h.explain({ baselines: [baseline({ total: [MIN, 2 * MIN], run: [50 * SEC, 80 * SEC], wait: [5 * SEC, 20 * SEC] })] }).cause).toBe(
      "nothing_unusual",
    );
    expect(h.words({ baselines: [baseline({ total: [MIN, 2 * MIN] })] }).summary).toMatch(
      /^Nothing unusual: it took 1m 10s, within the usual for acme's export\.tenant_data jobs/,
    );
    expect(claimsOf(h.explain({ baselines: [baseline({ total: [SEC, 2 * SEC], n: 19 })] }).claims, "compare")).toEqual([]);
  });

  it("says when its input was larger than usual", () => {
    const h = new H().run(10 * SEC, "w-1").finish(5 * MIN);
    const b = { ...baseline({ total: [MIN, 2 * MIN], run: [50 * SEC, 90 * SEC] }), input: { param: "rows", p50: 50_000, p95: 200_000 } };
    const { summary } = h.words({ baselines: [b], input: { param: "rows", value: 400_000 } });
    expect(summary).toMatch(
      /Its input was larger than usual: rows 400,000, beyond the p95 of acme's export\.tenant_data jobs that succeeded in the 7 days before it was submitted \(200,000\)\./,
    );
  });
});

describe("the per-attempt table", () => {
  it("says what each attempt is: not yet claimed, paused, running, ended", () => {
    const waiting = new H().run(SEC, "w-1").fail(SEC).retry(MIN).explain();
    expect(waiting.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, "ended"],
      [2, "waiting"],
    ]);
    const paused = new H().run(SEC, "w-1").operator(MIN, "pause", "paused");
    paused.t += 20 * 60 * MIN;
    expect(paused.explain().attempts.map((a) => a.status)).toEqual(["paused"]);
    expect(new H().explain({ asOf: T0 + MIN }).attempts.map((a) => [a.attempt, a.status, a.queueWaitMs])).toEqual([[1, "waiting", MIN]]);
  });

  it("an attempt ran from its start to its end, as its run record says; the wait after its claim is its own", () => {
    const h = new H()
      .claim(2 * SEC, "w-1")
      .start(300)
      .fail(4 * SEC)
      .retry(MIN)
      .claim(SEC, "w-2")
      .start(20 * SEC)
      .finish(SEC);
    const ex = h.explain();
    const times = (a: AttemptRow) => [a.queueWaitMs, a.claimedMs, a.runningMs, a.backoffMs];
    expect(ex.attempts.map(times)).toEqual([
      [2 * SEC, 300, 4 * SEC, MIN],
      [SEC, 20 * SEC, SEC, 0],
    ]);
    // Each attempt's running time is its run record's start to end; all of them, the phase bar's "running".
    const ranFor = (r: ExplainRun) => r.finishedAt!.getTime() - r.startedAt!.getTime();
    expect(ex.attempts.map((a) => a.runningMs)).toEqual(h.runs.map(ranFor));
    expect(claimsOf(ex.claims, "phase").find((c) => c.phase === "running")?.ms).toBe(5 * SEC);
    expect(claimsOf(ex.claims, "phase").find((c) => c.phase === "claimed")?.ms).toBe(20 * SEC + 300);
    // Paused by an operator in the middle of its run: that time is its own too.
    const paused = new H()
      .run(SEC, "w-1")
      .operator(MIN, "pause", "paused")
      .operator(2 * MIN, "resume", "running")
      .finish(SEC)
      .explain();
    expect(paused.attempts.map((a) => [a.runningMs, a.pausedMs])).toEqual([[MIN + SEC, 2 * MIN]]);
  });
});

describe("time", () => {
  it("a job submitted this instant", () => {
    const ex = new H().explain();
    expect(ex.cause).toBe("none");
    expect(render(ex, { queue: "exports", state: "queued" }, { audience: "staff" }).summary).toMatch(/submitted a moment ago/);
  });

  it("a scheduled delay is not queue wait, and a replay's not_before is not mistaken for one", () => {
    const h = new H({ notBeforeMs: 30 * MIN }).run(32 * MIN, "w-1").finish(MIN);
    const ex = h.explain();
    expect([ex.phases.scheduled, ex.phases.queue_wait, ex.cause]).toEqual([30 * MIN, 2 * MIN, "scheduled"]);
    expect(render(ex, h.job(), { audience: "staff" }).summary).toMatch(
      /^Most of its 33m was the delay it was scheduled with: 30m, until 08:30 UTC\./,
    );
  });

  it("clock times follow the viewer's time zone", () => {
    const h = new H().run(SEC, "w-1").cancelByTenant(5 * MIN);
    expect(render(h.explain(), h.job(), { audience: "staff", timeZone: "Europe/Berlin" }).summary).toMatch(/at 09:05 GMT\+1/);
  });

  it("humanizes error classes", () => {
    expect(humanizeError("UpstreamTimeout", 2)).toBe("upstream timeouts");
    expect(humanizeError("OutOfMemoryError", 1)).toBe("out of memory error");
    expect(humanizeError("PermanentError", 3)).toBe("permanent errors");
  });
});
