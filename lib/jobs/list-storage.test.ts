import { beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../bench/generate";
import { setupTestDb } from "../db/test-db";
import { STATES, type JobState } from "../fsm/table";
import { parseJobFilters, type JobFilters } from "./filters";
import { orderOf } from "./filters";
import { SCAN_BUDGET } from "./list-source";
import { countByState, COUNT_CAP, listJobs } from "./queries";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The console's reads of the storage (lib/jobs/list-source.ts) against the compatibility views read
// naively: on a few thousand generated histories (bench/generate.ts), every page of every tab and
// filter, followed forwards to the end and back to the start, must give exactly the jobs the
// `jobs` view gives under the same filter, in the same order; and the tab counts must agree.

const t = setupTestDb({ tenants: [] });
let some: { idempotencyKey: string; id: string; worker: string };
beforeAll(async () => {
  await generate(t.pool, { count: 6_000, spanDays: 2 });
  const [k] = await execute<{ idempotencyKey: string; id: string }>(
    t.pool,
    sql`
    SELECT idempotency_key, id FROM job_catalog WHERE idempotency_key IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
  );
  const [w] = await execute<{ worker: string }>(
    t.pool,
    sql`
    SELECT worker_id AS worker FROM job_attempts WHERE outcome <> 'succeeded' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
  );
  some = { ...k!, worker: w!.worker };
}, 300_000);

type F = Record<string, string>;

/** The ids the `jobs` view gives under `f`, in the order listJobs pages them. */
async function oracle(f: JobFilters): Promise<string[]> {
  const db = t.pool;
  const order = orderOf(f);
  if (order === null) return [];
  const parts = [sql`TRUE`];
  if (f.state) parts.push(sql`j.state = ${f.state}`);
  if (f.tenant) parts.push(sql`j.tenant_id = ${f.tenant}`);
  if (f.type) parts.push(sql`j.type = ${f.type}`);
  if (f.queue) parts.push(sql`j.queue = ${f.queue}`);
  if (f.createdFrom) parts.push(sql`j.created_at >= ${f.createdFrom}`);
  if (f.createdTo) parts.push(sql`j.created_at < ${f.createdTo}`);
  if (f.finishedFrom) parts.push(sql`j.finished_at >= ${f.finishedFrom}`);
  if (f.finishedTo) parts.push(sql`j.finished_at < ${f.finishedTo}`);
  if (order === "finished") parts.push(sql`j.finished_at IS NOT NULL`);
  if (f.errorClass) parts.push(sql`EXISTS (SELECT 1 FROM job_runs r WHERE r.job_id = j.id AND r.error_class = ${f.errorClass})`);
  if (f.worker) {
    parts.push(
      sql`(j.lease_owner = ${f.worker} OR EXISTS (SELECT 1 FROM job_runs r WHERE r.job_id = j.id AND r.worker_id = ${f.worker} AND r.outcome <> 'succeeded'))`,
    );
  }
  if (f.q) parts.push(sql`(j.id::text = ${f.q.toLowerCase()} OR j.idempotency_key = ${f.q})`);
  const where = parts.reduce((acc, p) => sql`${acc} AND ${p}`);
  const by = order === "created" ? sql`j.created_at DESC, j.id DESC` : order === "finished" ? sql`j.finished_at DESC, j.id DESC` : sql`j.id DESC`;
  return (await execute<{ id: string }>(db, sql`SELECT j.id FROM jobs j WHERE ${where} ORDER BY ${by}`)).map((r) => r.id);
}

/** Every page of `f` from the first on, then every page back from the last; the ids each way, newest first. */
async function pageThrough(f: JobFilters) {
  const forward: string[][] = [];
  let page = await listJobs(t.pool, f);
  forward.push(page.jobs.map((j) => j.id));
  let reads = 1;
  while (page.next) {
    page = await listJobs(t.pool, { ...f, after: page.next });
    forward.push(page.jobs.map((j) => j.id));
    if (++reads > 500) throw new Error("more than 500 pages");
  }
  const back: string[][] = [forward.at(-1)!];
  while (page.prev) {
    page = await listJobs(t.pool, { ...f, after: undefined, before: page.prev });
    back.unshift(page.jobs.map((j) => j.id));
    if (++reads > 1000) throw new Error("more than 500 pages back");
  }
  return {
    forward: forward.flat(),
    back: back.flat(),
    pages: forward.length,
    shortPages: forward.slice(0, -1).filter((p) => p.length < f.limit).length,
  };
}

const CASES: F[] = [
  {},
  ...STATES.map((state) => ({ state })),
  { tenant: "acme" },
  { tenant: "acme", state: "succeeded" },
  { tenant: "globex", type: "media.render", state: "succeeded" },
  { type: "media.render", state: "dead" },
  { tenant: "acme", queue: "default" },
  { queue: "exports", state: "cancelled" },
  { errorClass: "UpstreamTimeout" },
  { errorClass: "RateLimited", tenant: "globex" },
  { errorClass: "OutOfMemoryError", state: "succeeded" },
  { errorClass: "OutOfMemoryError", state: "retry_wait" },
  { state: "retry_wait", tenant: "acme" },
  { sort: "finished" },
  { sort: "finished", type: "upstream.call" },
  { state: "queued", sort: "finished" },
];

describe("listJobs on the storage, against the jobs view", () => {
  for (const c of CASES) {
    it(`pages ${JSON.stringify(c)} forwards and back, every job once, in the view's order`, async () => {
      const f = parseJobFilters({ ...c, limit: "70" });
      const want = await oracle(f);
      const got = await pageThrough(f);
      expect(got.forward).toEqual(want);
      expect(got.back).toEqual(want);
    });
  }

  it("filters by worker, created and finished range, and id or idempotency key the same way", async () => {
    const [mid] = await execute<{ at: Date }>(t.pool, sql`SELECT created_at AS at FROM job_catalog ORDER BY created_at DESC OFFSET 3000 LIMIT 1`);
    const hour = 3_600_000;
    const more: JobFilters[] = [
      parseJobFilters({ worker: some.worker, limit: "20" }),
      parseJobFilters({ worker: some.worker, state: "succeeded", limit: "20" }),
      { ...parseJobFilters({ limit: "90" }), createdFrom: new Date(mid!.at.getTime() - hour), createdTo: mid!.at },
      { ...parseJobFilters({ state: "succeeded", limit: "90" }), finishedFrom: new Date(mid!.at.getTime() - hour), finishedTo: mid!.at },
      parseJobFilters({ q: some.idempotencyKey }),
      parseJobFilters({ q: some.id.toUpperCase() }),
    ];
    for (const f of more) {
      const want = await oracle(f);
      expect(want.length).toBeGreaterThan(0);
      expect((await pageThrough(f)).forward).toEqual(want);
    }
  });

  it("a rare combination reads at most a budget of rows per page: short pages whose cursors continue the walk", async () => {
    // Succeeded jobs that once lost a lease (RateLimited, in the generator) are under 2 in 100 finishes:
    // a page of 70 takes more rows than the budget.
    const f = parseJobFilters({ errorClass: "RateLimited", state: "succeeded", limit: "70" });
    const got = await pageThrough(f);
    expect(got.shortPages).toBeGreaterThan(0);
    const [finishes] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM job_finishes WHERE state = 'succeeded'`);
    expect(got.pages).toBeGreaterThanOrEqual(Math.ceil(finishes!.n / SCAN_BUDGET));
    expect(got.forward).toEqual(await oracle(f));
  });
});

describe("countByState on the storage, against the jobs view", () => {
  const byState = async (f: Omit<JobFilters, "state">) => {
    const rows = await execute<{ state: JobState; n: number }>(
      t.pool,
      sql`
      SELECT j.state, count(*)::int AS n FROM jobs j WHERE j.id = ANY(${sql.param(await oracle({ ...f, state: undefined, sort: "created", limit: 50 }))}::uuid[]) GROUP BY 1`,
    );
    return new Map(rows.map((r) => [r.state, r.n]));
  };

  for (const c of [
    {},
    { tenant: "acme" },
    { type: "media.render" },
    { tenant: "globex", type: "export.tenant_data" },
    { errorClass: "RateLimited" },
  ] as F[]) {
    it(`counts ${JSON.stringify(c)}: exact up to the cap, "cap+" above`, async () => {
      const f = parseJobFilters(c);
      const want = await byState(f);
      const got = await countByState(t.pool, f, 40);
      for (const s of STATES) {
        const n = want.get(s) ?? 0;
        if (got[s].capped) expect(got[s].n).toBeLessThanOrEqual(n);
        else expect(got[s].n).toBe(n);
      }
    });
  }

  for (const c of [{}, { tenant: "acme" }] as F[]) {
    it(`counts ${JSON.stringify(c)} at the console's cap: a state above it says so, the others are exact`, async () => {
      const f = parseJobFilters(c);
      const want = await byState(f);
      const full = await countByState(t.pool, f, COUNT_CAP);
      for (const s of STATES)
        expect(full[s]).toEqual((want.get(s) ?? 0) > COUNT_CAP ? { n: COUNT_CAP, capped: true } : { n: want.get(s) ?? 0, capped: false });
    });
  }
});
