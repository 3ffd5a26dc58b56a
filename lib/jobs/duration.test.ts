import { beforeAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { History } from "../demo/history";
import { durationMs, JobFilters, parseJobFilters } from "./filters";
import { listJobs } from "./queries";
import { api } from "./test-helpers";
import { idPrefixRange } from "../uuid";
import { withScope } from "../db/scope";
import { shortId } from "./short-id";

// Longest first, and "took longer than", ranked on the list's own walk.
const MIN = 60_000;
const t = setupTestDb();
const NOW = Date.now();
const took: Record<string, number> = {};
const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;

beforeAll(async () => {
  // acme's reports, each submitted an hour or more ago, taking 5, 50, 20, 35 min; one still running 70 min.
  for (const [i, minutes] of [5, 50, 20, 35].entries()) {
    const h = await new History(t.pool, NOW - (3 * 60 + i) * MIN).submit({ tenantId: "acme", ...REPORT }, api);
    await (await h.run("w-1", MIN, 0)).step("finish", (minutes - 1) * MIN);
    took[h.id] = minutes;
  }
  const running = await new History(t.pool, NOW - 70 * MIN).submit({ tenantId: "acme", ...REPORT }, api);
  await running.run("w-1", MIN, 0);
  took[running.id] = 70;
  // Another tenant's very long one: never in acme's list.
  const other = await new History(t.pool, NOW - 5 * 60 * MIN).submit({ tenantId: "globex", ...REPORT }, api);
  await (await other.run("w-1", MIN, 0)).step("finish", 200 * MIN);
});

describe("jobs by duration", () => {
  it("parses 'took longer than' values and drops malformed ones", () => {
    expect(durationMs("1h30m")).toBe(90 * MIN);
    expect(durationMs("90s")).toBe(90_000);
    expect(durationMs("2d")).toBe(2 * 24 * 60 * MIN);
    expect(parseJobFilters({ longerThan: "30M" }).longerThan).toBe("30m");
    for (const bad of ["", "30", "m", "1x", "-5m", "30m; DROP TABLE"]) expect(parseJobFilters({ longerThan: bad }).longerThan).toBeUndefined();
    expect(JobFilters.parse({ sort: "duration" }).sort).toBe("duration");
  });

  it("sorts finished jobs longest first, and pages both ways; a running job is not ranked among them", async () => {
    const f = parseJobFilters({ tenant: "acme", sort: "duration", limit: "2" });
    const p1 = await listJobs(t.pool, f);
    expect(p1.jobs.map((j) => took[j.id])).toEqual([50, 35]);
    expect(p1.ranked).toEqual({ n: 4, capped: false });
    expect(p1.prev).toBeNull();
    const p2 = await listJobs(t.pool, { ...f, after: p1.next! });
    expect(p2.jobs.map((j) => took[j.id])).toEqual([20, 5]);
    expect(p2.next).toBeNull();
    const back = await listJobs(t.pool, { ...f, before: p2.prev! });
    expect(back.jobs.map((j) => took[j.id])).toEqual([50, 35]);
  });

  it("on a live state's tab ranks by the time so far", async () => {
    const running = await listJobs(t.pool, parseJobFilters({ tenant: "acme", sort: "duration", state: "running" }));
    expect(running.jobs.map((j) => took[j.id])).toEqual([70]);
    expect(running.ranked).toEqual({ n: 1, capped: false });
  });

  it("lists oldest first, and pages both ways", async () => {
    const f = parseJobFilters({ tenant: "acme", sort: "oldest", limit: "2" });
    // Submitted 3h03m, 3h02m, 3h01m and 3h ago, then the running one 70 min ago.
    const p1 = await listJobs(t.pool, f);
    expect(p1.jobs.map((j) => took[j.id])).toEqual([35, 20]);
    expect(p1.prev).toBeNull();
    const p2 = await listJobs(t.pool, { ...f, after: p1.next! });
    expect(p2.jobs.map((j) => took[j.id])).toEqual([50, 5]);
    const p3 = await listJobs(t.pool, { ...f, after: p2.next! });
    expect(p3.jobs.map((j) => took[j.id])).toEqual([70]);
    expect(p3.next).toBeNull();
    const back = await listJobs(t.pool, { ...f, before: p3.prev! });
    expect(back.jobs.map((j) => took[j.id])).toEqual([50, 5]);
    // A finished state's tab: oldest finished first (175, 162, 148 and 131 min ago).
    const finished = await listJobs(t.pool, parseJobFilters({ tenant: "acme", sort: "oldest", state: "succeeded" }));
    expect(finished.jobs.map((j) => took[j.id])).toEqual([5, 20, 35, 50]);
  });

  it("'took longer than' keeps the list's order, or the duration order when asked", async () => {
    const created = await listJobs(t.pool, parseJobFilters({ tenant: "acme", longerThan: "30m" }));
    // Newest created first (the running one, then the 50-min one submitted before the 35-min one), over 30 min only.
    expect(created.jobs.map((j) => took[j.id])).toEqual([70, 50, 35]);
    expect(created.ranked).toEqual({ n: 5, capped: false });
    // Longest first ranks finished jobs only: the running one is left out.
    const longest = await listJobs(t.pool, parseJobFilters({ tenant: "acme", longerThan: "30m", sort: "duration" }));
    expect(longest.jobs.map((j) => took[j.id])).toEqual([50, 35]);
    const finished = await listJobs(t.pool, parseJobFilters({ tenant: "acme", longerThan: "30m", state: "succeeded" }));
    // A finished state's tab is newest finished first: the 50-min one finished 131 min ago, the 35-min one 148.
    expect(finished.jobs.map((j) => took[j.id])).toEqual([50, 35]);
    expect((await listJobs(t.pool, parseJobFilters({ tenant: "acme", longerThan: "2h" }))).jobs).toEqual([]);
  });
});

describe("short ids", () => {
  it("a prefix is a range of ids; anything else is not", () => {
    expect(idPrefixRange("01a230b2")).toEqual({ lo: "01a230b2-0000-0000-0000-000000000000", hi: "01a230b2-ffff-ffff-ffff-ffffffffffff" });
    expect(idPrefixRange("01A230B2-601a")).toEqual({ lo: "01a230b2-601a-0000-0000-000000000000", hi: "01a230b2-601a-ffff-ffff-ffffffffffff" });
    for (const bad of ["01a23", "01a230bz", "01a2-30b2", "demo-slow-export", "01a230b2-601a-71fa-b3d2-ebfbabd04ab8"])
      expect(idPrefixRange(bad)).toBeNull();
  });

  it("the lookup resolves a unique prefix to its job, and lists every match of a shared one", async () => {
    const ids = Object.keys(took);
    const one = ids[0]!;
    const unique = one.slice(0, 30);
    const found = await listJobs(t.pool, parseJobFilters({ q: unique }));
    expect(found.jobs.map((j) => j.id)).toEqual([one]);
    // Ids are UUIDv7: jobs submitted within a minute or so share their first 8 characters.
    const shared = one.slice(0, 8);
    const matches = (await listJobs(t.pool, parseJobFilters({ q: shared, limit: "200" }))).jobs.map((j) => j.id);
    expect(matches).toContain(one);
    expect(matches.every((id) => id.startsWith(shared) || id.endsWith(shared))).toBe(true);
    // Confined to a tenant like any other filter.
    const acme = (await listJobs(t.pool, parseJobFilters({ q: shared, tenant: "globex", limit: "200" }))).jobs;
    expect(acme.every((j) => j.tenantId === "globex")).toBe(true);
    expect((await listJobs(t.pool, parseJobFilters({ q: "ffffffff" }))).jobs).toEqual([]);
  });

  it("the short id the console prints (the id's last 8 digits) finds its job", async () => {
    // In a scope, as the console reads: an id's end is matched with the tenant policy written out (drizzle/0025).
    await withScope(t.pool, { all: true }, async (tx) => {
      for (const id of Object.keys(took)) {
        const found = (await listJobs(tx, parseJobFilters({ q: shortId(id) }))).jobs.map((j) => j.id);
        expect(found).toEqual([id]);
        expect((await listJobs(tx, parseJobFilters({ q: shortId(id).toUpperCase() }))).jobs.map((j) => j.id)).toEqual([id]);
      }
    });
  });
});
