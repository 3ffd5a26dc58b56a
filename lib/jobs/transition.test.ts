import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "./claim";
import { enqueue, EnqueueError } from "./enqueue";
import { heartbeat } from "./heartbeat";
import { api, checkJobIntegrity, eventsOf, getJob, newJob, operator, rejectionsOf, runJob, supervisor, worker } from "./test-helpers";
import { transition } from "./transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

describe("enqueue", () => {
  it("submits a queued job with its submit event", async () => {
    const job = await newJob(t.pool);
    expect(job).toMatchObject({ state: "queued", attempt: 0, stateVersion: 0, maxAttempts: 3 });
    const events = await eventsOf(t.pool, job.id);
    expect(events).toEqual([expect.objectContaining({ event: "submit", fromState: null, toState: "queued", actorKind: "api" })]);
  });

  it.each([
    ["an unknown type", { type: "nope" }, "unknown_type"],
    ["invalid params", { params: { report: "daily_usage", period: "yesterday" } }, "invalid_params"],
    ["max_attempts below 1", { maxAttempts: 0 }, "invalid_input"],
    ["an unknown tenant", { tenantId: "initech" }, "unknown_tenant"],
    ["an unknown field", { colour: "red" }, "invalid_input"],
  ])("refuses %s with a clear error and writes nothing", async (_name, patch, code) => {
    const [before] = await execute(t.pool, sql`SELECT (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM job_events)::int AS events`);
    const input = { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, ...patch };
    const err = await enqueue(t.pool, input as never, api).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnqueueError);
    expect((err as EnqueueError).code).toBe(code);
    const [after] = await execute(t.pool, sql`SELECT (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM job_events)::int AS events`);
    expect(after).toEqual(before);
  });

  it("returns the first job for a repeated idempotency key, per tenant", async () => {
    const input = { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, idempotencyKey: "k-1" };
    const a = await enqueue(t.pool, input, api);
    const b = await enqueue(t.pool, input, api);
    const c = await enqueue(t.pool, { ...input, tenantId: "globex" }, api);
    expect([a.created, b.created, c.created]).toEqual([true, false, true]);
    expect(b.job.id).toBe(a.job.id);
    expect(c.job.id).not.toBe(a.job.id);
  });
});

describe("claim", () => {
  it("claims due jobs in one statement: attempt + 1, lease, run record, event", async () => {
    const job = await newJob(t.pool);
    const later = await enqueue(
      t.pool,
      {
        tenantId: "acme",
        type: "report.generate",
        params: { report: "daily_usage", period: "2026-11" },
        queue: job.queue,
        notBefore: new Date(Date.now() + 60_000),
      },
      api,
    );
    const claimed = await claim(t.pool, { workerId: "w-1", queues: [job.queue], limit: 10 });
    expect(claimed.map((j) => j.id)).toEqual([job.id]);
    expect(claimed[0]).toMatchObject({ state: "claimed", attempt: 1, stateVersion: 1 });
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "claimed", leaseOwner: "w-1" });
    expect((await getJob(t.pool, later.job.id)).state).toBe("queued");
    const [run] = await execute(t.pool, sql`SELECT worker_id, outcome, started_at FROM job_runs WHERE job_id = ${job.id}`);
    expect(run).toEqual({ workerId: "w-1", outcome: null, startedAt: null });
    expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
  });

  it("claims a batch up to the limit, never more", async () => {
    const first = await newJob(t.pool);
    for (let i = 0; i < 4; i++) {
      await enqueue(
        t.pool,
        { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: first.queue },
        api,
      );
    }
    const a = await claim(t.pool, { workerId: "w-1", queues: [first.queue], limit: 3 });
    const b = await claim(t.pool, { workerId: "w-2", queues: [first.queue], limit: 3 });
    expect(a).toHaveLength(3);
    expect(b).toHaveLength(2);
    expect(new Set([...a, ...b].map((j) => j.id)).size).toBe(5);
  });
});

describe("transition", () => {
  it("inside a console request's transaction, the guarded write reuses one generic plan, as workers do", async () => {
    const job = await newJob(t.pool);
    const mode = await t.pool.transaction(async (tx) => {
      const r = await transition(tx, { jobId: job.id, event: "cancel", actor: operator });
      expect(r.ok).toBe(true);
      const [m] = await execute<{ planCacheMode: string }>(tx, sql`SELECT current_setting('plan_cache_mode') AS plan_cache_mode`);
      return m?.planCacheMode;
    });
    expect(mode).toBe("force_generic_plan");
    // Local to that transaction: the pool's next session is as it was.
    const [after] = await execute<{ planCacheMode: string }>(t.pool, sql`SELECT current_setting('plan_cache_mode') AS plan_cache_mode`);
    expect(after?.planCacheMode).toBe("auto");
  });

  it("runs a job to succeeded, storing the result on its run record", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    const done = await transition(t.pool, { jobId: job.id, event: "finish", actor: worker(), attempt: 1, result: { rows: 3 } });
    expect(done).toMatchObject({ ok: true, from: "running", job: { state: "succeeded", stateVersion: 3, leaseOwner: null } });
    const row = await getJob(t.pool, job.id);
    expect(row.finishedAt).toBeInstanceOf(Date);
    const [run] = await execute(t.pool, sql`SELECT outcome, result, started_at IS NOT NULL AS started FROM job_runs WHERE job_id = ${job.id}`);
    expect(run).toEqual({ outcome: "succeeded", result: { rows: 3 }, started: true });
    expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
  });

  it("refuses an event the table does not allow, records it, and changes nothing", async () => {
    const job = await newJob(t.pool);
    const r = await transition(t.pool, { jobId: job.id, event: "resume", actor: operator });
    expect(r).toMatchObject({ ok: false, kind: "illegal", current: { state: "queued", stateVersion: 0 } });
    expect(await rejectionsOf(t.pool, job.id)).toEqual([expect.objectContaining({ kind: "illegal", event: "resume", currentState: "queued" })]);
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "queued", stateVersion: 0 });
  });

  it("refuses an actor the table does not name for the event", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    const r = await transition(t.pool, { jobId: job.id, event: "pause", actor: { kind: "tenant", id: "acme-user" } });
    expect(r).toMatchObject({ ok: false, kind: "illegal" });
    expect((await getJob(t.pool, job.id)).state).toBe("running");
  });

  it("gives a stale console page a conflict naming who moved the job", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    await transition(t.pool, { jobId: job.id, event: "finish", actor: worker(), attempt: 1 });
    const r = await transition(t.pool, {
      jobId: job.id,
      event: "cancel",
      actor: operator,
      expected: { state: "running", version: job.stateVersion },
    });
    expect(r).toMatchObject({
      ok: false,
      kind: "conflict",
      current: { state: "succeeded", movedBy: { actorKind: "worker", actorId: "w-1", event: "finish" } },
    });
    expect(r.ok ? "" : r.reason).toMatch(/worker w-1 applied finish at .*now succeeded/);
  });

  it("fences workers by attempt and lease owner", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    const wrongAttempt = await transition(t.pool, { jobId: job.id, event: "finish", actor: worker(), attempt: 2 });
    const wrongWorker = await transition(t.pool, { jobId: job.id, event: "finish", actor: worker("w-9"), attempt: 1 });
    const noAttempt = await transition(t.pool, { jobId: job.id, event: "finish", actor: worker() });
    expect([wrongAttempt, wrongWorker, noAttempt].map((r) => (r.ok ? "ok" : r.kind))).toEqual(["conflict", "conflict", "illegal"]);
    expect((await getJob(t.pool, job.id)).state).toBe("running");
  });

  it("fails to retry_wait with a backoff, then abandons on the last attempt", async () => {
    const job = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 2 }));
    const retryAt = new Date(Date.now() + 30_000);
    const failed = await transition(t.pool, {
      jobId: job.id,
      event: "fail",
      actor: worker(),
      attempt: 1,
      retryAt,
      error: { class: "UpstreamTimeout", message: "took 30s" },
    });
    expect(failed).toMatchObject({ ok: true, job: { state: "retry_wait", notBefore: retryAt } });
    await transition(t.pool, { jobId: job.id, event: "retry", actor: operator });
    await runJob(t.pool, job);
    const lastFail = await transition(t.pool, { jobId: job.id, event: "fail", actor: worker(), attempt: 2, error: { class: "X", message: "again" } });
    expect(lastFail).toMatchObject({ ok: false, kind: "illegal" });
    const dead = await transition(t.pool, { jobId: job.id, event: "abandon", actor: worker(), attempt: 2, error: { class: "X", message: "again" } });
    expect(dead).toMatchObject({ ok: true, job: { state: "dead", attempt: 2 } });
    const runs = await execute(t.pool, sql`SELECT attempt, outcome, error_class FROM job_runs WHERE job_id = ${job.id} ORDER BY attempt`);
    expect(runs).toEqual([
      { attempt: 1, outcome: "failed", errorClass: "UpstreamTimeout" },
      { attempt: 2, outcome: "failed", errorClass: "X" },
    ]);
    const replayed = await transition(t.pool, { jobId: job.id, event: "replay", actor: operator });
    expect(replayed).toMatchObject({ ok: true, job: { state: "queued", attempt: 2, maxAttempts: 3, finishedAt: null } });
    expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
  });

  it("reclaims only while the heartbeat is still stale", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    const past = new Date(Date.now() - 60_000);
    const fresh = await transition(t.pool, { jobId: job.id, event: "reclaim", actor: supervisor, staleBefore: past });
    expect(fresh).toMatchObject({ ok: false, kind: "conflict", current: { state: "running" } });
    const stale = await transition(t.pool, { jobId: job.id, event: "reclaim", actor: supervisor, staleBefore: new Date(Date.now() + 1000) });
    expect(stale).toMatchObject({ ok: true, job: { state: "queued", leaseOwner: null } });
    const [run] = await execute(t.pool, sql`SELECT outcome FROM job_runs WHERE job_id = ${job.id}`);
    expect(run?.outcome).toBe("lease_expired");
  });

  it("answers not_found for a missing job", async () => {
    const r = await transition(t.pool, { jobId: "00000000-0000-4000-8000-000000000000", event: "cancel", actor: operator });
    expect(r).toMatchObject({ ok: false, kind: "not_found" });
    expect(await transition(t.pool, { jobId: "not-a-uuid", event: "cancel", actor: operator })).toMatchObject({ ok: false, kind: "not_found" });
  });
});

describe("heartbeat", () => {
  it("touches only heartbeat_at, is fenced, and tells the worker of a cancel", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    await transition(t.pool, { jobId: job.id, event: "cancel", actor: operator });
    const beat = await heartbeat(t.pool, { workerId: "w-1", jobs: [{ id: job.id, attempt: 1 }] });
    expect(beat.get(job.id)).toEqual({ state: "cancelling", stateVersion: 3 });
    expect((await heartbeat(t.pool, { workerId: "w-1", jobs: [{ id: job.id, attempt: 2 }] })).size).toBe(0);
    expect((await heartbeat(t.pool, { workerId: "w-2", jobs: [{ id: job.id, attempt: 1 }] })).size).toBe(0);
    expect((await getJob(t.pool, job.id)).stateVersion).toBe(3);
  });
});
