import { beforeAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { History, OPERATOR } from "../demo/history";
import { transition } from "../jobs/transition";
import { api } from "../jobs/test-helpers";
import { registerWorker, touchWorker } from "../worker/registry";
import {
  busiestErrors,
  driftStatus,
  latencyByType,
  latencySampleWindow,
  listRejections,
  listWorkers,
  poisonSuspects,
  sampleSteps,
  throughput,
  transitionCounts,
} from "./queries";
import { listJobs } from "../jobs/queries";
import { parseJobFilters } from "../jobs/filters";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const MIN = 60_000;
const TIMEOUT = { class: "UpstreamTimeout", message: "timed out" };
const t = setupTestDb();
// Every history below ends within the last hour before NOW.
const NOW = new Date();
const ago = (ms: number) => NOW.getTime() - ms;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // Ten quick reports: 1 min queue wait, 2 min running, all succeeded, in the last 40 minutes.
  for (let i = 0; i < 10; i++) {
    const h = await new History(t.pool, ago(40 * MIN) + i * MIN).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await (await h.run("w-a", MIN, 0)).step("finish", 2 * MIN);
  }
  // One report that timed out once, backed off 10 min, then finished.
  {
    const h = await new History(t.pool, ago(30 * MIN)).submit(
      { tenantId: "globex", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await h.run("w-b", 5 * MIN, 0);
    await h.fail(MIN, TIMEOUT, 10 * MIN);
    await (await h.run("w-a", 0, 0)).step("finish", MIN);
    ids.retried = h.id;
  }
  // A poison job: two attempts lost with their workers, then given up.
  {
    const h = await new History(t.pool, ago(50 * MIN)).submit({ tenantId: "acme", type: "poison.crash", params: {} }, api);
    await h.run("w-dead-1", 0, 0);
    await h.loseLease(MIN, 30_000);
    await h.run("w-dead-2", 0, 0);
    await h.loseLease(MIN, 30_000);
    ids.poison = h.id;
  }
  // Lost once: not a poison suspect.
  {
    const h = await new History(t.pool, ago(50 * MIN)).submit(
      { tenantId: "acme", type: "upstream.call", params: { endpoint: "https://x.example", timeoutRate: 0 } },
      api,
    );
    await h.run("w-a", 0, 0);
    await h.loseLease(MIN, 30_000);
    await (await h.run("w-a", 0, 0)).step("finish", MIN);
    ids.lostOnce = h.id;
  }
  // Handed back by a draining worker before it started, then claimed again 3 min after the release.
  {
    const h = await new History(t.pool, ago(20 * MIN)).submit(
      { tenantId: "acme", type: "media.render", params: { assetId: "a-1", frames: 10 } },
      api,
    );
    await h.claim("w-r", MIN);
    await h.step("release", MIN);
    await (await h.run("w-r", 3 * MIN, 0)).step("finish", MIN);
    ids.released = h.id;
  }
  // An old failure, outside every window but the day.
  {
    const h = await new History(t.pool, ago(20 * 3_600_000)).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await h.run("w-a", 0, 0);
    await h.step("abandon", MIN, undefined, { error: { class: "PermanentError", message: "410" } });
  }
});

describe("overview aggregates", () => {
  it("throughput: ended attempts per step by outcome, and the failure rate", async () => {
    const points = await throughput(t.pool, "1h", NOW);
    expect(points).toHaveLength(60);
    const sum = (k: "succeeded" | "failed" | "leaseExpired" | "other") => points.reduce((s, p) => s + p[k], 0);
    expect(sum("succeeded")).toBe(13);
    expect(sum("failed")).toBe(1);
    expect(sum("leaseExpired")).toBe(3);
    expect(sum("other")).toBe(1); // the release
    const withFailure = points.find((p) => p.failed === 1)!;
    expect(withFailure.failureRate).toBeGreaterThan(0);
    expect(points.filter((p) => p.failureRate === null).length).toBeGreaterThan(30);
    // The day's window sees the old abandon ("failed" run) too.
    const day = await throughput(t.pool, "24h", NOW);
    expect(day).toHaveLength(96);
    expect(day.reduce((s, p) => s + p.failed, 0)).toBe(2);
  });

  it("queue wait and run time percentiles per type", async () => {
    const rows = await latencyByType(t.pool, "1h", NOW);
    const report = rows.find((r) => r.type === "report.generate")!;
    expect(report.attempts).toBe(12);
    expect(report.queueP50).toBe(MIN);
    // The retried report waited 5 min for its first claim: above the p95 rank of 12? No: nearest rank 12 × 0.95 → 12th value.
    expect(report.queueP95).toBe(5 * MIN);
    expect(report.runP50).toBe(2 * MIN);
    const poison = rows.find((r) => r.type === "poison.crash")!;
    expect(poison.attempts).toBe(2);
    // Queue wait after a reclaim counts from the reclaim (a job_log row), not from the submit.
    expect(poison.queueP95).toBe(0);
    // After a release, from the release (the previous attempt's closing event); a released attempt never ran.
    expect(rows.find((r) => r.type === "media.render")).toEqual({
      type: "media.render",
      attempts: 2,
      queueP50: MIN,
      queueP95: 3 * MIN,
      runP50: MIN,
      runP95: MIN,
    });
  });

  it("the latency sample narrows its window: the narrowest of a minute, two, four… that holds the newest attempts", async () => {
    expect(sampleSteps(3_600_000)).toEqual([1, 2, 4, 8, 16, 32, 60].map((m) => m * MIN));
    expect(sampleSteps(60_000)).toEqual([MIN]);
    // Attempts ended 13 (the retried report's second), 14 (the render's second), 24, 28… minutes before NOW.
    expect(await latencySampleWindow(t.pool, "1h", NOW, 1)).toEqual({ from: new Date(ago(16 * MIN)), probes: 5 });
    expect(await latencySampleWindow(t.pool, "1h", NOW, 3)).toEqual({ from: new Date(ago(32 * MIN)), probes: 6 });
    // More than the hour holds: the whole window, without counting it.
    expect(await latencySampleWindow(t.pool, "1h", NOW, 1000)).toEqual({ from: new Date(ago(60 * MIN)), probes: 7 });
    // Exactly the newest N of the window, as a sort of the whole window would give.
    const newest = async (n: number) =>
      (
        await execute<{ type: string; n: number }>(
          t.pool,
          sql`
        SELECT c.type, count(*)::int AS n FROM (SELECT job_id FROM job_attempts WHERE finished_at >= ${new Date(ago(60 * MIN))} AND finished_at <= ${NOW}
                                                ORDER BY finished_at DESC LIMIT ${n}) a JOIN job_catalog c ON c.id = a.job_id GROUP BY 1 ORDER BY 2 DESC, 1`,
        )
      ).map((r) => [r.type, r.n]);
    for (const n of [1, 3, 5, 14]) {
      expect((await latencyByType(t.pool, "1h", NOW, n)).map((r) => [r.type, r.attempts])).toEqual(await newest(n));
    }
  });

  it("busiest error classes", async () => {
    const rows = await busiestErrors(t.pool, "1h", NOW);
    expect(rows.map((r) => [r.errorClass, r.attempts, r.jobs])).toEqual([
      ["LeaseExpired", 3, 2],
      ["UpstreamTimeout", 1, 1],
    ]);
  });

  it("poison suspects: twice lost, with the workers that died on it", async () => {
    await registerWorker(t.pool, { id: "w-dead-2", queues: ["default"], concurrency: 1 });
    await execute(t.pool, sql`UPDATE workers SET last_seen_at = now() - interval '5 minutes' WHERE id = 'w-dead-2'`);
    const rows = await poisonSuspects(t.pool, NOW);
    expect(rows.map((r) => r.jobId)).toEqual([ids.poison]);
    expect(rows[0]).toMatchObject({ type: "poison.crash", crashes: 2, state: "queued" });
    expect(rows[0]!.workers).toEqual([
      { id: "w-dead-1", attempt: 1, status: "unknown" },
      { id: "w-dead-2", attempt: 2, status: "crashed" },
    ]);
  });

  it("the jobs list flags poison jobs and filters by them", async () => {
    const all = await listJobs(t.pool, parseJobFilters({ limit: "200" }));
    const byId = new Map(all.jobs.map((j) => [j.id, j]));
    expect(byId.get(ids.poison!)?.crashes).toBe(2);
    expect(byId.get(ids.lostOnce!)?.crashes).toBe(1);
    expect(byId.get(ids.retried!)?.crashes).toBe(0);
    const only = await listJobs(t.pool, parseJobFilters({ poison: "1" }));
    expect(only.jobs.map((j) => j.id)).toEqual([ids.poison]);
  });

  it("transition counts per (from, event, to) in the window", async () => {
    const rows = await transitionCounts(t.pool, "1h", NOW);
    const n = (from: string | null, event: string) => rows.find((r) => r.from === from && r.event === event)?.n ?? 0;
    expect(n(null, "submit")).toBe(14);
    // A worker's transitions, read back from its attempts: 18 claims, 17 starts (the released attempt never started).
    expect(n("queued", "claim")).toBe(18);
    expect(n("claimed", "start")).toBe(17);
    expect(n("claimed", "release")).toBe(1);
    expect(n("running", "finish")).toBe(13);
    expect(n("running", "reclaim")).toBe(3);
    expect(n("running", "fail")).toBe(1);
    expect(n("running", "abandon")).toBe(0);
    expect((await transitionCounts(t.pool, "24h", NOW)).find((r) => r.event === "abandon")?.n).toBe(1);
  });
});

describe("workers", () => {
  it("lists live, crashed and stopped workers with their own counters, the leases they lost since they started, and the jobs they hold", async () => {
    await registerWorker(t.pool, { id: "w-a", queues: ["default", "exports"], concurrency: 4 });
    await registerWorker(t.pool, { id: "w-gone", queues: ["media"], concurrency: 1 });
    await execute(t.pool, sql`UPDATE workers SET stopped_at = now() WHERE id = 'w-gone'`);
    // The histories above are back-dated: these workers started before them.
    await execute(t.pool, sql`UPDATE workers SET started_at = now() - interval '2 hours' WHERE id IN ('w-a', 'w-dead-2')`);
    // What w-a counted and wrote with its heartbeat.
    await touchWorker(t.pool, { id: "w-a", queues: ["default", "exports"], concurrency: 4, succeeded: 12, failed: 1 });
    const running = await new History(t.pool, Date.now() - 1000).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await running.run("w-a", 0, 0);
    const paused = await new History(t.pool, Date.now() - 1000).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await (await paused.run("w-a", 0, 0)).step("pause", 0, OPERATOR);
    const rows = await listWorkers(t.pool);
    const a = rows.find((w) => w.id === "w-a")!;
    // One lease lost (the job lost once); its lost attempts as w-dead-1 and w-dead-2 are theirs.
    expect(a).toMatchObject({
      status: "live",
      finished: 12,
      failed: 1,
      reclaimed: 1,
      reclaimedCapped: false,
      attempts: 14,
      queues: ["default", "exports"],
    });
    expect(a.current.map((j) => [j.id, j.state]).sort()).toEqual(
      [
        [running.id, "running"],
        [paused.id, "paused"],
      ].sort(),
    );
    expect(rows.find((w) => w.id === "w-dead-2")).toMatchObject({ status: "crashed", reclaimed: 1, current: [] });
    expect(rows.find((w) => w.id === "w-gone")).toMatchObject({ status: "stopped", finished: 0, reclaimed: 0 });
    // Live workers first.
    expect(rows[0]!.status).not.toBe("stopped");
    expect(rows.at(-1)!.status).toBe("stopped");
    // A restarted worker starts its counts again, the leases it lost included.
    await registerWorker(t.pool, { id: "w-a", queues: ["default"], concurrency: 4 });
    expect((await listWorkers(t.pool)).find((w) => w.id === "w-a")).toMatchObject({ finished: 0, failed: 0, reclaimed: 0 });
  });
});

describe("rejections", () => {
  it("filters by kind, event, actor and job, newest first, with keyset pages", async () => {
    // Three illegal refusals and one drift.
    for (let i = 0; i < 3; i++) {
      await transition(t.pool, { jobId: ids.retried!, event: "resume", actor: { kind: "operator", id: `op-${i}` } });
    }
    expect(await driftStatus(t.pool)).toEqual({ count: 0, capped: false, latest: null });
    // A stale page: a conflict.
    await transition(t.pool, { jobId: ids.lostOnce!, event: "replay", actor: OPERATOR, expected: { state: "dead", version: 999 } });
    // An incident fix that bypassed the write path (triggers off, as a superuser): the state moves, the version does not.
    const fixed = await new History(t.pool, Date.now()).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await t.pool.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      await execute(tx, sql`UPDATE jobs_live SET state = 'retry_wait' WHERE id = ${fixed.id}`);
    });
    const r = await transition(t.pool, { jobId: fixed.id, event: "cancel", actor: OPERATOR, expected: { state: "queued", version: 0 } });
    expect(r).toMatchObject({ ok: false, kind: "drift" });

    const drift = await driftStatus(t.pool);
    expect(drift.count).toBe(1);
    expect(drift.latest).toMatchObject({ jobId: fixed.id });

    const all = await listRejections(t.pool, {});
    expect(all.rows.length).toBe(5);
    expect(all.rows.map((r) => Number(r.id))).toEqual([...all.rows.map((r) => Number(r.id))].sort((a, b) => b - a));
    expect((await listRejections(t.pool, { kind: "drift" })).rows.map((r) => r.jobId)).toEqual([fixed.id]);
    expect((await listRejections(t.pool, { kind: "conflict" })).rows).toHaveLength(1);
    expect((await listRejections(t.pool, { event: "resume" })).rows).toHaveLength(3);
    expect((await listRejections(t.pool, { actor: "op-1" })).rows).toHaveLength(1);
    expect((await listRejections(t.pool, { job: ids.retried })).rows).toHaveLength(3);
    expect((await listRejections(t.pool, { job: "not-a-uuid" })).rows).toEqual([]);

    const p1 = await listRejections(t.pool, { limit: 2 });
    const p2 = await listRejections(t.pool, { limit: 2, after: p1.next! });
    const p3 = await listRejections(t.pool, { limit: 2, after: p2.next! });
    expect([...p1.rows, ...p2.rows, ...p3.rows].map((r) => r.id)).toEqual(all.rows.map((r) => r.id));
    expect(p3.next).toBeNull();
  });
});
