import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../db/test-db";
import { History, OPERATOR } from "../demo/history";
import { transition } from "../jobs/transition";
import { api, seedTenants } from "../jobs/test-helpers";
import { registerWorker } from "../worker/registry";
import { slownessContext } from "./baseline";
import { analyzeSlowness } from "./slowness";
import { busiestErrors, driftStatus, latencyByType, listRejections, listWorkers, poisonSuspects, throughput, transitionCounts } from "./queries";
import { listJobs } from "../jobs/queries";
import { parseJobFilters } from "../jobs/filters";

const MIN = 60_000;
const TIMEOUT = { class: "UpstreamTimeout", message: "timed out" };
let t: TestDb;
// Every history below ends within the last hour before NOW.
const NOW = new Date();
const ago = (ms: number) => NOW.getTime() - ms;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDb();
  await seedTenants(t.sql, ["acme", "globex"]);
  // Ten quick reports: 1 min queue wait, 2 min running, all succeeded, in the last 40 minutes.
  for (let i = 0; i < 10; i++) {
    const h = await new History(t.sql, ago(40 * MIN) + i * MIN).submit({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }, api);
    await (await h.run("w-a", MIN, 0)).step("finish", 2 * MIN);
  }
  // One report that timed out once, backed off 10 min, then finished.
  {
    const h = await new History(t.sql, ago(30 * MIN)).submit({ tenantId: "globex", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }, api);
    await h.run("w-b", 5 * MIN, 0);
    await h.fail(MIN, TIMEOUT, 10 * MIN);
    await (await h.run("w-a", 0, 0)).step("finish", MIN);
    ids.retried = h.id;
  }
  // A poison job: two attempts lost with their workers, then given up.
  {
    const h = await new History(t.sql, ago(50 * MIN)).submit({ tenantId: "acme", type: "poison.crash", params: {} }, api);
    await h.run("w-dead-1", 0, 0);
    await h.loseLease(MIN, 30_000);
    await h.run("w-dead-2", 0, 0);
    await h.loseLease(MIN, 30_000);
    ids.poison = h.id;
  }
  // Lost once: not a poison suspect.
  {
    const h = await new History(t.sql, ago(50 * MIN)).submit({ tenantId: "acme", type: "upstream.call", params: { endpoint: "https://x.example", timeoutRate: 0 } }, api);
    await h.run("w-a", 0, 0);
    await h.loseLease(MIN, 30_000);
    await (await h.run("w-a", 0, 0)).step("finish", MIN);
    ids.lostOnce = h.id;
  }
  // An old failure, outside every window but the day.
  {
    const h = await new History(t.sql, ago(20 * 3_600_000)).submit({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }, api);
    await h.run("w-a", 0, 0);
    await h.step("abandon", MIN, undefined, { error: { class: "PermanentError", message: "410" } });
  }
});
afterAll(() => t.close());

describe("overview aggregates", () => {
  it("throughput: ended attempts per step by outcome, and the failure rate", async () => {
    const points = await throughput(t.sql, "1h", NOW);
    expect(points).toHaveLength(60);
    const sum = (k: "succeeded" | "failed" | "leaseExpired" | "other") => points.reduce((s, p) => s + p[k], 0);
    expect(sum("succeeded")).toBe(12);
    expect(sum("failed")).toBe(1);
    expect(sum("leaseExpired")).toBe(3);
    expect(sum("other")).toBe(0);
    const withFailure = points.find((p) => p.failed === 1)!;
    expect(withFailure.failureRate).toBeGreaterThan(0);
    expect(points.filter((p) => p.failureRate === null).length).toBeGreaterThan(30);
    // The day's window sees the old abandon ("failed" run) too.
    const day = await throughput(t.sql, "24h", NOW);
    expect(day).toHaveLength(96);
    expect(day.reduce((s, p) => s + p.failed, 0)).toBe(2);
  });

  it("queue wait and run time percentiles per type", async () => {
    const rows = await latencyByType(t.sql, "1h", NOW);
    const report = rows.find((r) => r.type === "report.generate")!;
    expect(report.attempts).toBe(12);
    expect(report.queueP50).toBe(MIN);
    // The retried report waited 5 min for its first claim: above the p95 rank of 12? No: nearest rank 12 × 0.95 → 12th value.
    expect(report.queueP95).toBe(5 * MIN);
    expect(report.runP50).toBe(2 * MIN);
    const poison = rows.find((r) => r.type === "poison.crash")!;
    expect(poison.attempts).toBe(2);
    // Queue wait after a reclaim counts from the reclaim, not from the submit.
    expect(poison.queueP95).toBe(0);
  });

  it("busiest error classes", async () => {
    const rows = await busiestErrors(t.sql, "1h", NOW);
    expect(rows.map((r) => [r.errorClass, r.attempts, r.jobs])).toEqual([
      ["LeaseExpired", 3, 2],
      ["UpstreamTimeout", 1, 1],
    ]);
  });

  it("poison suspects: twice lost, with the workers that died on it", async () => {
    await registerWorker(t.sql, { id: "w-dead-2", queues: ["default"], concurrency: 1 });
    await t.sql`UPDATE workers SET last_seen_at = now() - interval '5 minutes' WHERE id = 'w-dead-2'`;
    const rows = await poisonSuspects(t.sql, NOW);
    expect(rows.map((r) => r.jobId)).toEqual([ids.poison]);
    expect(rows[0]).toMatchObject({ type: "poison.crash", losses: 2, state: "queued" });
    expect(rows[0]!.workers).toEqual([
      { id: "w-dead-1", attempt: 1, status: "unknown" },
      { id: "w-dead-2", attempt: 2, status: "silent" },
    ]);
  });

  it("the jobs list flags poison jobs and filters by them", async () => {
    const all = await listJobs(t.sql, parseJobFilters({ limit: "200" }));
    const byId = new Map(all.jobs.map((j) => [j.id, j]));
    expect(byId.get(ids.poison!)?.leaseLosses).toBe(2);
    expect(byId.get(ids.lostOnce!)?.leaseLosses).toBe(1);
    expect(byId.get(ids.retried!)?.leaseLosses).toBe(0);
    const only = await listJobs(t.sql, parseJobFilters({ poison: "1" }));
    expect(only.jobs.map((j) => j.id)).toEqual([ids.poison]);
  });

  it("transition counts per (from, event, to) in the window", async () => {
    const rows = await transitionCounts(t.sql, "1h", NOW);
    const n = (from: string | null, event: string) => rows.find((r) => r.from === from && r.event === event)?.n ?? 0;
    expect(n(null, "submit")).toBe(13);
    expect(n("running", "reclaim")).toBe(3);
    expect(n("running", "fail")).toBe(1);
    expect(n("running", "abandon")).toBe(0);
    expect((await transitionCounts(t.sql, "24h", NOW)).find((r) => r.event === "abandon")?.n).toBe(1);
  });
});

describe("workers", () => {
  it("lists live, silent and stopped workers with their attempts and held jobs", async () => {
    await registerWorker(t.sql, { id: "w-a", queues: ["default", "exports"], concurrency: 4 });
    await registerWorker(t.sql, { id: "w-gone", queues: ["media"], concurrency: 1 });
    await t.sql`UPDATE workers SET stopped_at = now() WHERE id = 'w-gone'`;
    const h = await new History(t.sql, Date.now() - 1000).submit({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }, api);
    await h.run("w-a", 0, 0);
    const rows = await listWorkers(t.sql);
    const a = rows.find((w) => w.id === "w-a")!;
    expect(a).toMatchObject({ status: "live", finished: 12, failed: 0, reclaimed: 1, attempts: 14, queues: ["default", "exports"] });
    expect(a.current.map((j) => [j.id, j.state])).toEqual([[h.id, "running"]]);
    expect(rows.find((w) => w.id === "w-dead-2")).toMatchObject({ status: "silent", reclaimed: 1 });
    expect(rows.find((w) => w.id === "w-gone")).toMatchObject({ status: "stopped" });
    // Live workers first.
    expect(rows[0]!.status).not.toBe("stopped");
    expect(rows.at(-1)!.status).toBe("stopped");
  });
});

describe("rejections", () => {
  it("filters by kind, event, actor and job, newest first, with keyset pages", async () => {
    // Three illegal refusals and one drift.
    for (let i = 0; i < 3; i++) {
      await transition(t.sql, { jobId: ids.retried!, event: "resume", actor: { kind: "operator", id: `op-${i}` } });
    }
    expect(await driftStatus(t.sql)).toEqual({ count: 0, capped: false, latest: null });
    // A stale page: a conflict.
    await transition(t.sql, { jobId: ids.lostOnce!, event: "replay", actor: OPERATOR, expected: { state: "dead", version: 999 } });
    // An incident fix that bypassed the write path (triggers off, as a superuser): the state moves, the version does not.
    await t.sql.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`UPDATE jobs SET state = 'dead' WHERE id = ${ids.lostOnce!}`;
    });
    const [row] = await t.sql<{ v: number }[]>`SELECT state_version AS v FROM jobs WHERE id = ${ids.lostOnce!}`;
    const r = await transition(t.sql, { jobId: ids.lostOnce!, event: "replay", actor: OPERATOR, expected: { state: "succeeded", version: row!.v } });
    expect(r).toMatchObject({ ok: false, kind: "drift" });

    const drift = await driftStatus(t.sql);
    expect(drift.count).toBe(1);
    expect(drift.latest).toMatchObject({ jobId: ids.lostOnce });

    const all = await listRejections(t.sql, {});
    expect(all.rows.length).toBe(5);
    expect(all.rows.map((r) => Number(r.id))).toEqual([...all.rows.map((r) => Number(r.id))].sort((a, b) => b - a));
    expect((await listRejections(t.sql, { kind: "drift" })).rows.map((r) => r.jobId)).toEqual([ids.lostOnce]);
    expect((await listRejections(t.sql, { kind: "conflict" })).rows).toHaveLength(1);
    expect((await listRejections(t.sql, { event: "resume" })).rows).toHaveLength(3);
    expect((await listRejections(t.sql, { actor: "op-1" })).rows).toHaveLength(1);
    expect((await listRejections(t.sql, { job: ids.retried })).rows).toHaveLength(3);
    expect((await listRejections(t.sql, { job: "not-a-uuid" })).rows).toEqual([]);

    const p1 = await listRejections(t.sql, { limit: 2 });
    const p2 = await listRejections(t.sql, { limit: 2, after: p1.next! });
    const p3 = await listRejections(t.sql, { limit: 2, after: p2.next! });
    expect([...p1.rows, ...p2.rows, ...p3.rows].map((r) => r.id)).toEqual(all.rows.map((r) => r.id));
    expect(p3.next).toBeNull();
  });
});

describe("slowness context", () => {
  it("compares with the same type, per tenant and overall, and counts the jobs ahead at submit", async () => {
    const [job] = await t.sql<{ id: string; type: string; queue: string; tenantId: string; priority: number; createdAt: Date }[]>`
      SELECT id, type, queue, tenant_id, priority, created_at FROM jobs WHERE id = ${ids.retried!}`;
    const staff = await slownessContext(t.sql, job!, { tenantOnly: false });
    expect(staff.baselines.map((b) => [b.label, b.n])).toEqual([
      ["globex's report.generate jobs", 0],
      ["report.generate jobs (all tenants)", 11],
    ]);
    // Ten reports of acme and the old one that died; not the job itself.
    const all = staff.baselines[1]!;
    expect(all.phases.running!.p50).toBe(2 * MIN);
    // Submitted 30 min ago; the reports submitted 40..31 min ago were each claimed a minute after their
    // submit, the last one at that very moment: none was still waiting.
    expect(staff.aheadAtSubmit).toBe(0);
    const tenant = await slownessContext(t.sql, job!, { tenantOnly: true });
    expect(tenant.baselines.map((b) => b.label)).toEqual(["globex's report.generate jobs"]);
  });

  it("counts the jobs of its queue still waiting at its submit, not those claimed or of a lower priority", async () => {
    const q = "q-ahead";
    const report = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: q } as const;
    for (let i = 0; i < 3; i++) await new History(t.sql, ago(10 * MIN) + i * MIN).submit({ tenantId: "acme", ...report }, api);
    await new History(t.sql, ago(10 * MIN)).submit({ tenantId: "acme", ...report, priority: 9 }, api);
    await (await new History(t.sql, ago(10 * MIN)).submit({ tenantId: "acme", ...report }, api)).run("w-a", MIN);
    const subject = await new History(t.sql, ago(5 * MIN)).submit({ tenantId: "acme", ...report, priority: 5 }, api);
    const [job] = await t.sql<{ id: string; type: string; queue: string; tenantId: string; priority: number; createdAt: Date }[]>`
      SELECT id, type, queue, tenant_id, priority, created_at FROM jobs WHERE id = ${subject.id}`;
    expect((await slownessContext(t.sql, job!, { tenantOnly: false })).aheadAtSubmit).toBe(3);
  });

  it("the analysis of a real job says backoff, and compares it", async () => {
    const [job] = await t.sql`SELECT * FROM jobs WHERE id = ${ids.retried!}`;
    const runs = await t.sql`SELECT * FROM job_runs WHERE job_id = ${ids.retried!}`;
    const events = await t.sql`SELECT * FROM job_events WHERE job_id = ${ids.retried!}`;
    const ctx = await slownessContext(t.sql, job as never, { tenantOnly: false });
    const r = analyzeSlowness(job as never, runs as never, events as never, { now: Date.now(), ...ctx });
    expect(r.dominant).toBe("retry_backoff");
    expect(r.summary).toMatch(/retry backoff after 1 upstream timeout/);
  });
});
