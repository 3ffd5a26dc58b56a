import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { runLiveDemo } from "../demo/live";
import { DEMO_TENANTS, seedDemo } from "../demo/seed";
import { History, OPERATOR } from "../demo/history";
import { api } from "../jobs/test-helpers";
import type { Claim, Explanation } from "./claims";
import { checkAll, checkExplanation } from "./check";
import { explainJob } from "./context";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ tenants: DEMO_TENANTS.map((d) => d.id) });
const MIN = 60_000;
const SEC = 1_000;

const staffOf = async (id: string, asOf = Date.now()) => (await explainJob(t.pool, id, { audience: "staff", asOf }))!;
const kinds = (v: { claim: string }[]) => v.map((x) => x.claim);

describe("the claim checker catches false claims", () => {
  it("a claim changed to say what the data does not is reported, each kind by its own query", async () => {
    // A job that waited in a paused queue, was lost once with its worker, then failed once and succeeded.
    const queue = `chk-${Math.random().toString(36).slice(2, 7)}`;
    const t0 = Date.now() - 30 * MIN;
    // The histories are written back-dated: so is the queue's pause, from before the submit to a minute after it.
    await execute(
      t.pool,
      sql`INSERT INTO queue_events (queue, event, actor_kind, actor_id, at) VALUES
      (${queue}, 'pause', 'operator', ${OPERATOR.id}, ${new Date(t0 - MIN)}), (${queue}, 'resume', 'operator', ${OPERATOR.id}, ${new Date(t0 + MIN)})`,
    );
    const h = await new History(t.pool, t0).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue },
      api,
    );
    await h.run("w-chk-1", 2 * MIN);
    await h.loseLease(MIN, 30 * SEC);
    await h.run("w-chk-2", MIN);
    await h.fail(20 * SEC, { class: "UpstreamTimeout", message: "timed out" }, 2 * MIN);
    await (await h.run("w-chk-3", 10 * SEC)).step("finish", 30 * SEC);
    const asOf = Date.now();
    const { explanation } = await staffOf(h.id, asOf);
    expect(await checkExplanation(t.pool, h.id, explanation)).toEqual([]);

    const mutate = async (f: (c: Claim) => Claim | null, extra: Partial<Explanation> = {}) => {
      const claims = explanation.claims.map((c) => f(c) ?? c);
      return kinds(await checkExplanation(t.pool, h.id, { ...explanation, ...extra, claims }));
    };
    expect(await mutate((c) => (c.kind === "phase" && c.phase === "retry_backoff" ? { ...c, ms: c.ms + 5_000 } : null))).toContain("phase");
    expect(await mutate((c) => (c.kind === "failures" ? { ...c, failed: 2 } : null))).toContain("failures");
    expect(await mutate((c) => (c.kind === "lost_attempt" ? { ...c, worker: "w-other" } : null))).toContain("lost_attempt");
    expect(await mutate((c) => (c.kind === "lost_attempt" ? { ...c, refunded: true } : null))).toContain("lost_attempt");
    // A crash backoff it was never held for.
    expect(await mutate((c) => (c.kind === "lost_attempt" ? { ...c, heldMs: 5_000 } : null))).toContain("lost_attempt");
    // A pause that had ended, written as if it were still going on.
    expect(await mutate((c) => (c.kind === "queue_paused" ? { ...c, to: null } : null))).toContain("queue_paused");
    // Invented: no worker while the job's own queue had a claim; a limit the queue never had; a beyond-p95 that is not.
    const claim = (c: Claim) => [...explanation.claims, c];
    const run = explanation.claims.find((c) => c.kind === "phase" && c.phase === "running")!;
    const firstClaim = (
      await execute<{ at: Date }>(t.pool, sql`SELECT claimed_at AS at FROM job_attempts WHERE job_id = ${h.id} AND attempt = 2`)
    )[0]!.at.getTime();
    const add = async (c: Claim) => kinds(await checkExplanation(t.pool, h.id, { ...explanation, claims: claim(c) }));
    expect(await add({ kind: "no_worker", queue, from: firstClaim - 30 * SEC, to: firstClaim + 1, waitedMs: 1 })).toContain("no_worker");
    expect(await add({ kind: "queue_limit", queue, limit: 3, from: firstClaim - 30 * SEC, to: firstClaim, waitedMs: 1 })).toContain("queue_limit");
    const scope = { type: "report.generate", tenantId: null, from: asOf - 7 * 24 * 60 * MIN, to: asOf };
    expect(await add({ kind: "compare", metric: "total", value: 1_000, above: true, n: 0, scope, p50: 500, p95: 2_000 })).toContain("compare");
    expect(await add({ kind: "decision", event: "abandon", by: OPERATOR, at: asOf, from: "retry_wait", attempt: 1, maxAttempts: 3 })).toContain(
      "decision",
    );
    // The lead must be the largest cause.
    expect(run).toBeDefined();
    expect(
      kinds(await checkExplanation(t.pool, h.id, { ...explanation, cause: "queue_paused", costs: { ...explanation.costs, queue_paused: 1 } })),
    ).toContain("lead");
    // Nor may a cause too small a part of the total lead, even as the only one; a larger cost that
    // small is no reason for another lead.
    const leadOf = async (cause: Explanation["cause"], costs: Explanation["costs"]) =>
      kinds(await checkExplanation(t.pool, h.id, { ...explanation, cause, costs }));
    expect(await leadOf("queue_paused", { queue_paused: 500 })).toContain("lead");
    expect(await leadOf("slow_run", { slow_run: 200, jobs_ahead: 300 })).not.toContain("lead");
  });
});

describe("the claim checker on a replay", () => {
  it("names the operator who gave a job up before its replay, and reports the claim that leaves them out or names another", async () => {
    const h = await new History(t.pool, Date.now() - 4 * 60 * MIN).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await h.run("w-chk-r", 2 * SEC);
    await h.fail(5 * SEC, { class: "UpstreamTimeout", message: "timed out" }, 60 * MIN, true);
    await h.step("abandon", 30 * MIN, OPERATOR);
    await h.step("replay", 3 * 60 * MIN, { kind: "operator", id: "operator@jobscope.local" });
    const { explanation, words } = await staffOf(h.id);
    expect(words.summary).toMatch(
      /It had been given up by ops@jobscope\.dev \(operator\) at \d\d:\d\d UTC while it was waiting to retry, after attempt 1 failed/,
    );
    expect(await checkExplanation(t.pool, h.id, explanation)).toEqual([]);
    const replay = (c: Claim) => c.kind === "decision" && c.event === "replay";
    const mutate = async (f: (c: Claim & { kind: "decision" }) => Claim) =>
      kinds(
        await checkExplanation(t.pool, h.id, {
          ...explanation,
          claims: explanation.claims.map((c) => (replay(c) ? f(c as Claim & { kind: "decision" }) : c)),
        }),
      );
    expect(await mutate((c) => ({ ...c, endedBy: null }))).toContain("decision");
    expect(await mutate((c) => ({ ...c, endedBy: { ...c.endedBy!, by: { kind: "tenant", id: "dana@acme.example" } } }))).toContain("decision");
  });
});

describe("the claim checker on live histories", () => {
  it("finds no false claim in any job of a live demo with its faults (poison crashes, timeouts, pauses, a limit, people acting) nor in the seeded histories, and no tenant reads what is not theirs", async () => {
    await seedDemo(t.pool, { jobs: 150 });
    const lines: string[] = [];
    const live = await runLiveDemo(t.pool, { url: t.url, seconds: 32, log: (l) => lines.push(l) });
    expect(live.poison).toBeGreaterThan(0);
    expect(live.workerDeaths).toBeGreaterThan(0);

    const report = await checkAll(t.pool, async (id, audience, asOf) => explainJob(t.pool, id, { audience, asOf }));
    console.log(`CLAIMS ${JSON.stringify({ jobs: report.jobs, claims: report.claims, byKind: report.byKind, live, log: lines })}`);
    for (const v of [...report.violations, ...report.tenantLeaks]) console.log(`FALSE ${JSON.stringify(v)}`);
    // Every claim of every explanation holds. (The checker's own poison verdicts re-decide each death
    // with what is known after it — two crashers on one worker can tie differently then; what the demo
    // knows for certain is asserted below: only the jobs that crash their worker are stopped as poison.)
    expect(report.violations.filter((v) => v.claim !== "poison")).toEqual([]);
    expect(report.tenantLeaks).toEqual([]);
    // The run exercised what the claims are about.
    for (const k of ["phase", "failures", "decision", "lost_attempt", "crashed_workers", "queue_paused", "busy", "ahead", "compare"]) {
      expect(report.byKind[k] ?? 0, k).toBeGreaterThan(0);
    }
    // Poison, against what the demo knows: only the jobs that crash their worker are stopped as poison;
    // the jobs they took down were handed back.
    const poisoned = await execute<{ type: string }>(
      t.pool,
      sql`
        SELECT DISTINCT c.type FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id WHERE a.error_class = 'PoisonJob'`,
    );
    expect(poisoned.map((p) => p.type).filter((type) => type !== "poison.crash")).toEqual([]);
    const [rescued] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM job_log WHERE event = 'rescue'`);
    expect(rescued!.n).toBeGreaterThan(0);
    // A job blamed for a crash waited its crash backoff, and its explanation says how much of its wait that was.
    const [held] = await execute<{ id: string }>(
      t.pool,
      sql`SELECT job_id AS id FROM job_log WHERE event = 'reclaim' AND payload->'crash'->>'heldUntil' IS NOT NULL ORDER BY at LIMIT 1`,
    );
    expect(held).toBeDefined();
    const { explanation } = await staffOf(held!.id);
    expect(explanation.claims.some((c) => c.kind === "lost_attempt" && c.heldMs > 0)).toBe(true);
  }, 240_000);
});
