import { beforeAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { withScope } from "../db/scope";
import { claim } from "./claim";
import { listDeadGroups } from "./dead";
import { enqueue } from "./enqueue";
import { parseJobFilters } from "./filters";
import { countByState, getJobDetail, listJobs } from "./queries";
import { api, newJob, operator, runJob, supervisor, worker } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow, TransitionInput } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ tenants: ["acme", "globex", "tabs", "pages"] });
const made: JobRow[] = [];
beforeAll(async () => {
  // Seven reports a minute apart, newest last; two exports for another tenant.
  const base = Date.now() - 3_600_000;
  for (let i = 0; i < 7; i++) {
    made.push(await newJob(t.pool, { queue: "q-list", idempotencyKey: `rep-${i}` }, { at: new Date(base + i * 60_000) }));
  }
  for (let i = 0; i < 2; i++) {
    await enqueue(t.pool, { tenantId: "globex", type: "export.tenant_data", params: { dataset: "orders", rows: 1000 }, queue: "q-list" }, api);
  }
});

const ids = (p: { jobs: { id: string }[] }) => p.jobs.map((j) => j.id);

describe("listJobs", () => {
  it("pages forward and back with keyset cursors, newest first", async () => {
    const f = parseJobFilters({ type: "report.generate", limit: "3" });
    const p1 = await listJobs(t.pool, f);
    const newestFirst = [...made].reverse().map((j) => j.id);
    expect(ids(p1)).toEqual(newestFirst.slice(0, 3));
    expect(p1.prev).toBeNull();
    const p2 = await listJobs(t.pool, { ...f, after: p1.next! });
    expect(ids(p2)).toEqual(newestFirst.slice(3, 6));
    const p3 = await listJobs(t.pool, { ...f, after: p2.next! });
    expect(ids(p3)).toEqual(newestFirst.slice(6));
    expect(p3.next).toBeNull();
    const back = await listJobs(t.pool, { ...f, before: p3.prev! });
    expect(ids(back)).toEqual(newestFirst.slice(3, 6));
    const first = await listJobs(t.pool, { ...f, before: back.prev! });
    expect(ids(first)).toEqual(newestFirst.slice(0, 3));
    expect(first.prev).toBeNull();
  });

  it("filters by state, tenant, error class, worker, and finds a job by id or idempotency key", async () => {
    const job = await runJob(t.pool, made[0]!, "w-list");
    await transition(t.pool, {
      jobId: job.id,
      event: "fail",
      actor: worker("w-list"),
      attempt: 1,
      error: { class: "UpstreamTimeout", message: "slow" },
      retryAt: new Date(),
    });
    const only = async (q: Record<string, string>) => ids(await listJobs(t.pool, parseJobFilters(q)));
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
    const all = await countByState(t.pool, { queue: "q-list" });
    expect(all.queued.n + all.retry_wait.n).toBe(9);
    expect(Object.values(all).every((c) => !c.capped)).toBe(true);
    expect((await countByState(t.pool, { tenant: "globex" })).queued.n).toBe(2);
  });

  it("per state under no filter or a tenant: a state above the cap says at least the cap, the others stay exact", async () => {
    const capped = await countByState(t.pool, { tenant: "acme" }, 3);
    expect(capped.queued).toEqual({ n: 3, capped: true });
    expect(capped.succeeded).toEqual({ n: 0, capped: false });
  });

  it("under another filter with more matches than the cap: every count is a lower bound from at most cap + 1 jobs", async () => {
    const capped = await countByState(t.pool, { queue: "q-list" }, 5);
    expect(Object.values(capped).every((c) => c.capped)).toBe(true);
    expect(Object.values(capped).reduce((sum, c) => sum + c.n, 0)).toBe(6);
  });
});

describe("getJobDetail", () => {
  it("returns the job with its runs, events and rejections, or null", async () => {
    const job = made[1]!;
    await transition(t.pool, { jobId: job.id, event: "resume", actor: operator });
    const d = await getJobDetail(t.pool, job.id);
    expect(d?.job.id).toBe(job.id);
    expect(d?.events.map((e) => e.event)).toEqual(["submit"]);
    expect(d?.rejections.map((r) => r.kind)).toEqual(["illegal"]);
    expect(await getJobDetail(t.pool, "00000000-0000-4000-8000-000000000000")).toBeNull();
    expect(await getJobDetail(t.pool, "'; drop table jobs; --")).toBeNull();
  });

  it("reads a finished job's history from the storage: every attempt, the open one, every transition keyed by its version", async () => {
    const job = await submit("acme", { queue: "q-detail" });
    await end(job, "w-d1", "fail", TIMEOUT);
    await ok({ jobId: job.id, event: "retry", actor: supervisor });
    await end(job, "w-d2", "abandon", OOM);
    await ok({ jobId: job.id, event: "replay", actor: operator });
    await runJob(t.pool, job, "w-d3");
    const d = await getJobDetail(t.pool, job.id);
    expect(d?.job).toMatchObject({ state: "running", attempt: 3, leaseOwner: "w-d3", finishedAt: null });
    expect(d?.runs.map((r) => [r.attempt, r.workerId, r.outcome, r.errorClass])).toEqual([
      [1, "w-d1", "failed", "UpstreamTimeout"],
      [2, "w-d2", "failed", "OutOfMemoryError"],
      [3, "w-d3", null, null],
    ]);
    expect(d?.events.map((e) => [e.id, e.event])).toEqual([
      ["0", "submit"],
      ["1", "claim"],
      ["2", "start"],
      ["3", "fail"],
      ["4", "retry"],
      ["5", "claim"],
      ["6", "start"],
      ["7", "abandon"],
      ["8", "replay"],
      ["9", "claim"],
      ["10", "start"],
    ]);
    expect(d?.eventCount).toBe(11);
    const done = await ok({ jobId: job.id, event: "finish", actor: worker("w-d3"), attempt: 3, result: { ok: true } });
    expect((await getJobDetail(t.pool, job.id))?.job).toMatchObject({
      state: "succeeded",
      attempt: 3,
      stateVersion: 11,
      finishedAt: done.finishedAt,
      leaseOwner: null,
    });
  });
});

async function ok(input: TransitionInput): Promise<JobRow> {
  const r = await transition(t.pool, input);
  if (!r.ok) throw new Error(r.reason);
  return r.job;
}

const submit = async (tenantId: string, opts: { queue?: string; type?: string; key?: string; at?: Date } = {}) =>
  (
    await enqueue(
      t.pool,
      opts.type === "export.tenant_data"
        ? { tenantId, type: opts.type, params: { dataset: "orders", rows: 10 }, queue: opts.queue ?? "q-tabs", idempotencyKey: opts.key }
        : {
            tenantId,
            type: "report.generate",
            params: { report: "daily_usage", period: "2026-11" },
            queue: opts.queue ?? "q-tabs",
            idempotencyKey: opts.key,
          },
      api,
      { at: opts.at },
    )
  ).job;

/** Run `job` as `w` and end its attempt with `event` (finish, fail, abandon). */
async function end(job: JobRow, w: string, event: "finish" | "fail" | "abandon", error?: { class: string; message: string }) {
  const running = await runJob(t.pool, job, w);
  return ok({
    jobId: job.id,
    event,
    actor: worker(w),
    attempt: running.attempt,
    error,
    retryAt: event === "fail" ? new Date(Date.now() + 3_600_000) : undefined,
    result: event === "finish" ? { ok: true } : undefined,
  });
}

const OOM = { class: "OutOfMemoryError", message: "out of memory" };
const TIMEOUT = { class: "UpstreamTimeout", message: "slow" };
const BAD = { class: "ValidationError", message: "bad input" };

describe("the tabs, on the storage", () => {
  // Tenant "tabs": one or two jobs in every state, finished in the order they are listed here.
  const j: Record<string, JobRow> = {};
  beforeAll(async () => {
    for (const k of ["q1", "r1", "p1", "rw1", "s1", "s2", "d1", "c1", "x1", "c2"]) j[k] = await submit("tabs");
    j.other = await submit("tabs", { type: "export.tenant_data", queue: "q-other", key: "tabs-export" });
    await runJob(t.pool, j.r1!, "w-hold");
    const paused = await runJob(t.pool, j.p1!, "w-pause");
    await ok({ jobId: paused.id, event: "pause", actor: operator });
    await end(j.rw1!, "w-fail", "fail", TIMEOUT);
    await end(j.d1!, "w-kill", "abandon", OOM);
    await ok({ jobId: j.c1!.id, event: "cancel", actor: { kind: "tenant", id: "tabs-user" } });
    // Dead, replayed by an operator, dead again: one dead job, listed and counted once.
    await end(j.x1!, "w-kill", "abandon", BAD);
    await ok({ jobId: j.x1!.id, event: "replay", actor: operator });
    j.x1 = await end(j.x1!, "w-kill", "abandon", BAD);
    const c2 = await runJob(t.pool, j.c2!, "w-stop");
    await ok({ jobId: c2.id, event: "cancel", actor: operator });
    j.c2 = await ok({ jobId: c2.id, event: "stop", actor: worker("w-stop"), attempt: c2.attempt });
    j.s2 = await end(j.s2!, "w-ok", "finish");
    j.s1 = await end(j.s1!, "w-ok", "finish");
  });

  const list = async (q: Record<string, string>) => (await listJobs(t.pool, parseJobFilters({ tenant: "tabs", ...q }))).jobs;
  const idsOf = (names: string[]) => names.map((n) => j[n]!.id);

  it("lists a live state's jobs newest created first, and a finished state's newest finished first", async () => {
    const tab = async (state: string) => (await list({ state })).map((r) => r.id);
    expect(await tab("queued")).toEqual(idsOf(["other", "q1"]));
    expect(await tab("running")).toEqual(idsOf(["r1"]));
    expect(await tab("claimed")).toEqual([]);
    expect(await tab("paused")).toEqual(idsOf(["p1"]));
    expect(await tab("retry_wait")).toEqual(idsOf(["rw1"]));
    // s1 was created first and finished last.
    expect(await tab("succeeded")).toEqual(idsOf(["s1", "s2"]));
    expect(await tab("dead")).toEqual(idsOf(["x1", "d1"]));
    expect(await tab("cancelled")).toEqual(idsOf(["c2", "c1"]));
    // Asked for created order, a finished tab still answers in finished order (lib/jobs/list-source.ts).
    expect((await list({ state: "succeeded", sort: "created" })).map((r) => r.id)).toEqual(idsOf(["s1", "s2"]));
  });

  it("lists every job newest created first on the All tab, and only finished jobs newest finished first with sort=finished", async () => {
    expect((await list({})).map((r) => r.id)).toEqual(idsOf(["other", "c2", "x1", "c1", "d1", "s2", "s1", "rw1", "p1", "r1", "q1"]));
    expect((await list({ sort: "finished" })).map((r) => r.id)).toEqual(idsOf(["s1", "s2", "c2", "x1", "c1", "d1"]));
    // A live state has no finished time.
    expect(await list({ state: "queued", sort: "finished" })).toEqual([]);
  });

  it("completes each row: state and attempt from the live row or the last transition, the last attempt's error class and worker, lease losses", async () => {
    const rows = new Map((await list({})).map((r) => [r.id, r]));
    expect(rows.get(j.x1!.id)).toMatchObject({
      state: "dead",
      attempt: 2,
      stateVersion: j.x1!.stateVersion,
      lastErrorClass: "ValidationError",
      lastWorker: "w-kill",
      crashes: 0,
      finishedAt: j.x1!.finishedAt,
    });
    expect(rows.get(j.r1!.id)).toMatchObject({ state: "running", attempt: 1, lastErrorClass: null, lastWorker: "w-hold", finishedAt: null });
    expect(rows.get(j.rw1!.id)).toMatchObject({ state: "retry_wait", lastErrorClass: "UpstreamTimeout", lastWorker: "w-fail" });
    expect(rows.get(j.c1!.id)).toMatchObject({ state: "cancelled", attempt: 0, lastErrorClass: null, lastWorker: null });
    expect(rows.get(j.s1!.id)).toMatchObject({ state: "succeeded", finishedAt: j.s1!.finishedAt, updatedAt: j.s1!.finishedAt });
    expect(rows.get(j.q1!.id)).toMatchObject({ state: "queued", attempt: 0, lastWorker: null, finishedAt: null });
  });

  it("counts each state exactly, a job replayed and dead again once", async () => {
    const counts = await countByState(t.pool, { tenant: "tabs" });
    expect(Object.fromEntries(Object.entries(counts).map(([s, c]) => [s, c.n]))).toEqual({
      queued: 2,
      claimed: 0,
      running: 1,
      paused: 1,
      cancelling: 0,
      retry_wait: 1,
      succeeded: 2,
      dead: 2,
      cancelled: 2,
    });
    expect(Object.values(counts).every((c) => !c.capped)).toBe(true);
    // The same through the sampled path (a filter no state index serves).
    const sampled = await countByState(t.pool, { tenant: "tabs", type: "report.generate" });
    expect(sampled.dead).toEqual({ n: 2, capped: false });
    expect(sampled.queued).toEqual({ n: 1, capped: false });
    // And in the dead-letter groups.
    const groups = await listDeadGroups(t.pool, { tenant: "tabs" });
    expect(groups.groups.map((g) => [g.errorClass, g.count])).toEqual([
      ["ValidationError", 1],
      ["OutOfMemoryError", 1],
    ]);
  });

  it("filters by type, queue, error class on any attempt, worker and id or idempotency key", async () => {
    const ids = async (q: Record<string, string>) => (await list(q)).map((r) => r.id);
    expect(await ids({ type: "export.tenant_data" })).toEqual(idsOf(["other"]));
    expect(await ids({ queue: "q-other", state: "queued" })).toEqual(idsOf(["other"]));
    expect(await ids({ errorClass: "UpstreamTimeout" })).toEqual(idsOf(["rw1"]));
    expect(await ids({ errorClass: "UpstreamTimeout", state: "retry_wait" })).toEqual(idsOf(["rw1"]));
    expect(await ids({ errorClass: "OutOfMemoryError", state: "dead" })).toEqual(idsOf(["d1"]));
    expect(await ids({ errorClass: "OutOfMemoryError", state: "retry_wait" })).toEqual([]);
    // The worker filter: the jobs whose attempts did not succeed on it, or that it holds now.
    expect(await ids({ worker: "w-fail" })).toEqual(idsOf(["rw1"]));
    expect(await ids({ worker: "w-hold" })).toEqual(idsOf(["r1"]));
    expect(await ids({ worker: "w-pause", state: "paused" })).toEqual(idsOf(["p1"]));
    expect(await ids({ worker: "w-kill", state: "dead" })).toEqual(idsOf(["x1", "d1"]));
    expect(await ids({ worker: "w-ok" })).toEqual([]);
    expect(await ids({ q: j.s2!.id })).toEqual(idsOf(["s2"]));
    expect(await ids({ q: "tabs-export" })).toEqual(idsOf(["other"]));
    expect(await ids({ q: "tabs-export", state: "succeeded" })).toEqual([]);
    expect(await ids({ q: j.s2!.id, tenant: "acme" })).toEqual([]);
  });

  it("filters by created and finished ranges", async () => {
    const ids = async (f: Record<string, Date | string>) =>
      (await listJobs(t.pool, { ...parseJobFilters({ tenant: "tabs" }), ...f })).jobs.map((r) => r.id);
    const day = 86_400_000;
    const early = await submit("globex", { queue: "q-early", at: new Date(Date.now() - 3 * day) });
    const inGlobex = async (f: Record<string, Date | string>) =>
      (await listJobs(t.pool, { ...parseJobFilters({ tenant: "globex" }), ...f })).jobs.map((r) => r.id);
    expect(await inGlobex({ createdTo: new Date(Date.now() - day) })).toEqual([early.id]);
    expect(await inGlobex({ createdFrom: new Date(Date.now() - 4 * day), createdTo: new Date(Date.now() - 2 * day), state: "queued" })).toEqual([
      early.id,
    ]);
    expect(await inGlobex({ createdFrom: new Date(Date.now() - day), queue: "q-early" })).toEqual([]);
    expect(await ids({ finishedFrom: j.s2!.finishedAt!, state: "succeeded" })).toEqual(idsOf(["s1", "s2"]));
    expect(await ids({ finishedFrom: j.c2!.finishedAt!, finishedTo: j.s1!.finishedAt! })).toEqual(idsOf(["s2", "c2"]));
    expect(await ids({ finishedFrom: j.c2!.finishedAt!, state: "queued" })).toEqual([]);
  });
});

describe("poison suspects", () => {
  it("are the jobs that lost a lease twice or more in the last seven days; older losses still count on the row", async () => {
    const lose = async (job: JobRow, at?: Date) => {
      const [claimed] = await claim(t.pool, { workerId: "w-doomed", queues: [job.queue], limit: 1, onlyJobIds: [job.id], at });
      if (!claimed) throw new Error("not claimed");
      await ok({ jobId: job.id, event: "reclaim", actor: supervisor, staleBefore: new Date(Date.now() + 60_000), at });
    };
    const recent = await submit("tabs", { queue: "q-poison" });
    const old = await submit("tabs", { queue: "q-poison", at: new Date(Date.now() - 9 * 86_400_000) });
    for (let i = 0; i < 2; i++) await lose(recent);
    for (let i = 0; i < 2; i++) await lose(old, new Date(Date.now() - 8 * 86_400_000 + i * 60_000));
    const poison = (await listJobs(t.pool, parseJobFilters({ poison: "1", tenant: "tabs" }))).jobs;
    expect(poison.map((r) => [r.id, r.crashes])).toEqual([[recent.id, 2]]);
    const rows = (await listJobs(t.pool, parseJobFilters({ queue: "q-poison", state: "queued" }))).jobs;
    expect(rows.map((r) => [r.id, r.crashes])).toEqual([
      [recent.id, 2],
      [old.id, 2],
    ]);
  });
});

describe("keyset paging across page boundaries, both ways", () => {
  // Tenant "pages": five jobs in each of queued, succeeded and dead (with an error class), limit 2.
  const made: Record<"queued" | "succeeded" | "dead", JobRow[]> = { queued: [], succeeded: [], dead: [] };
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) made.queued.push(await submit("pages", { queue: "q-pages" }));
    for (let i = 0; i < 5; i++) made.succeeded.push(await end(await submit("pages", { queue: "q-pages" }), "w-pages", "finish"));
    for (let i = 0; i < 5; i++)
      made.dead.push(await end(await submit("pages", { queue: "q-pages" }), "w-pages", "abandon", { class: "PageError", message: "x" }));
  });

  async function both(q: Record<string, string>, want: string[]) {
    const f = parseJobFilters({ tenant: "pages", limit: "2", ...q });
    const pages: string[][] = [];
    let p = await listJobs(t.pool, f);
    expect(p.prev).toBeNull();
    pages.push(p.jobs.map((r) => r.id));
    while (p.next) {
      p = await listJobs(t.pool, { ...f, after: p.next });
      pages.push(p.jobs.map((r) => r.id));
    }
    expect(pages.flat()).toEqual(want);
    expect(pages.map((x) => x.length)).toEqual([2, 2, 1]);
    const back: string[][] = [pages.at(-1)!];
    while (p.prev) {
      p = await listJobs(t.pool, { ...f, before: p.prev });
      back.unshift(p.jobs.map((r) => r.id));
    }
    expect(back).toEqual(pages);
  }

  it("on a live state's tab (created order)", () =>
    both(
      { state: "queued" },
      [...made.queued].reverse().map((x) => x.id),
    ));
  it("on a finished state's tab (finished order)", () =>
    both(
      { state: "succeeded" },
      [...made.succeeded].reverse().map((x) => x.id),
    ));
  it("on the All tab under an error class (job id order)", async () => {
    await both(
      { errorClass: "PageError" },
      made.dead
        .map((x) => x.id)
        .sort()
        .reverse(),
    );
  });
});

describe("row-level security", () => {
  const app = t.connect({ role: "app", max: 2 });

  it("a tenant sees only its own jobs in every tab, count, search, job page and dead-letter group, whatever the filter says", async () => {
    const globex = (await listJobs(t.pool, parseJobFilters({ tenant: "globex", limit: "200" }))).jobs;
    const deadGlobex = await end(await submit("globex", { queue: "q-rls" }), "w-rls", "abandon", OOM);
    expect(globex.length).toBeGreaterThan(0);
    await withScope(app, { tenantId: "acme" }, async (tx) => {
      for (const q of [
        {},
        { state: "queued" },
        { state: "dead" },
        { state: "succeeded" },
        { tenant: "globex" },
        { sort: "finished" },
        { errorClass: "OutOfMemoryError" },
        { worker: "w-rls" },
        { q: deadGlobex.id },
      ]) {
        const rows = (await listJobs(tx, parseJobFilters({ ...q, limit: "200" }))).jobs;
        expect(rows.every((r) => r.tenantId === "acme")).toBe(true);
      }
      const counts = await countByState(tx, {});
      const total = Object.values(counts).reduce((n, c) => n + c.n, 0);
      const [acme] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM job_catalog WHERE tenant_id = 'acme'`);
      expect(total).toBe(acme!.n);
      expect(await getJobDetail(tx, deadGlobex.id)).toBeNull();
      expect((await listDeadGroups(tx, {})).groups).toEqual([]);
    });
    // Staff see every tenant's.
    await withScope(app, { all: true }, async (tx) => {
      expect((await getJobDetail(tx, deadGlobex.id))?.job.tenantId).toBe("globex");
    });
  });
});
