import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../db/test-db";
import { enqueue } from "./enqueue";
import { parseJobFilters } from "./filters";
import { countByState, getJobDetail, listJobs } from "./queries";
import { api, operator, runJob, seedTenants, worker } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";

let t: TestDb;
const made: JobRow[] = [];
beforeAll(async () => {
  t = await createTestDb();
  await seedTenants(t.sql);
  // Seven reports a minute apart, newest last; two exports for another tenant.
  const base = Date.now() - 3_600_000;
  for (let i = 0; i < 7; i++) {
    const { job } = await enqueue(t.sql, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: "q-list", idempotencyKey: `rep-${i}` }, api, { at: new Date(base + i * 60_000) });
    made.push(job);
  }
  for (let i = 0; i < 2; i++) {
    await enqueue(t.sql, { tenantId: "globex", type: "export.tenant_data", params: { dataset: "orders", rows: 1000 }, queue: "q-list" }, api);
  }
});
afterAll(() => t.close());

const ids = (p: { jobs: { id: string }[] }) => p.jobs.map((j) => j.id);

describe("listJobs", () => {
  it("pages forward and back with keyset cursors, newest first", async () => {
    const f = parseJobFilters({ type: "report.generate", limit: "3" });
    const p1 = await listJobs(t.sql, f);
    const newestFirst = [...made].reverse().map((j) => j.id);
    expect(ids(p1)).toEqual(newestFirst.slice(0, 3));
    expect(p1.prev).toBeNull();
    const p2 = await listJobs(t.sql, { ...f, after: p1.next! });
    expect(ids(p2)).toEqual(newestFirst.slice(3, 6));
    const p3 = await listJobs(t.sql, { ...f, after: p2.next! });
    expect(ids(p3)).toEqual(newestFirst.slice(6));
    expect(p3.next).toBeNull();
    const back = await listJobs(t.sql, { ...f, before: p3.prev! });
    expect(ids(back)).toEqual(newestFirst.slice(3, 6));
    const first = await listJobs(t.sql, { ...f, before: back.prev! });
    expect(ids(first)).toEqual(newestFirst.slice(0, 3));
    expect(first.prev).toBeNull();
  });

  it("filters by state, tenant, error class, worker, and finds a job by id or idempotency key", async () => {
    const job = await runJob(t.sql, made[0]!, "w-list");
    await transition(t.sql, { jobId: job.id, event: "fail", actor: worker("w-list"), attempt: 1, error: { class: "UpstreamTimeout", message: "slow" }, retryAt: new Date() });
    const only = async (q: Record<string, string>) => ids(await listJobs(t.sql, parseJobFilters(q)));
    expect(await only({ state: "retry_wait" })).toEqual([job.id]);
    expect(await only({ errorClass: "UpstreamTimeout" })).toEqual([job.id]);
    expect(await only({ worker: "w-list" })).toEqual([job.id]);
    expect(await only({ q: job.id })).toEqual([job.id]);
    expect(await only({ q: "rep-0" })).toEqual([job.id]);
    expect((await only({ tenant: "globex" })).length).toBe(2);
    expect(await only({ q: "no-such-key" })).toEqual([]);
  });

  it("ignores malformed filter values instead of failing", () => {
    const f = parseJobFilters({ state: "bogus", limit: "-3", createdFrom: "yesterday-ish", sort: "x" });
    expect(f).toMatchObject({ state: undefined, limit: 50, createdFrom: undefined, sort: "created" });
  });
});

describe("countByState", () => {
  it("counts exactly below the cap, by the filter's own index when it has one", async () => {
    const all = await countByState(t.sql, { queue: "q-list" });
    expect(all.queued.n + all.retry_wait.n).toBe(9);
    expect(Object.values(all).every((c) => !c.capped)).toBe(true);
    expect((await countByState(t.sql, { tenant: "globex" })).queued.n).toBe(2);
  });

  it("per state under no filter or a tenant: a state above the cap says at least the cap, the others stay exact", async () => {
    const capped = await countByState(t.sql, { tenant: "acme" }, 3);
    expect(capped.queued).toEqual({ n: 3, capped: true });
    expect(capped.succeeded).toEqual({ n: 0, capped: false });
  });

  it("under another filter with more matches than the cap: every count is a lower bound from at most cap + 1 jobs", async () => {
    const capped = await countByState(t.sql, { queue: "q-list" }, 5);
    expect(Object.values(capped).every((c) => c.capped)).toBe(true);
    expect(Object.values(capped).reduce((sum, c) => sum + c.n, 0)).toBe(6);
  });
});

describe("getJobDetail", () => {
  it("returns the job with its runs, events and rejections, or null", async () => {
    const job = made[1]!;
    await transition(t.sql, { jobId: job.id, event: "resume", actor: operator });
    const d = await getJobDetail(t.sql, job.id);
    expect(d?.job.id).toBe(job.id);
    expect(d?.events.map((e) => e.event)).toEqual(["submit"]);
    expect(d?.rejections.map((r) => r.kind)).toEqual(["illegal"]);
    expect(await getJobDetail(t.sql, "00000000-0000-4000-8000-000000000000")).toBeNull();
    expect(await getJobDetail(t.sql, "'; drop table jobs; --")).toBeNull();
  });
});
