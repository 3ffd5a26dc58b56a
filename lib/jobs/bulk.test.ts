import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { waitFor } from "../db/test-wait";
import { BULK_CAP, BULK_EVENTS, getBulkProgress, previewBulk, runBulkOperation, startBulk, type BulkProgress } from "./bulk";
import { enqueue } from "./enqueue";
import { parseJobFilters } from "./filters";
import { api, getJob, newJob, operator, runAndEnd, runJob } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const report = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;

async function onQueue(queue: string): Promise<JobRow> {
  return (await enqueue(t.pool, { tenantId: "acme", queue, ...report }, api)).job;
}

const failOnce = (job: JobRow) =>
  runAndEnd(t.pool, job, "fail", { error: { class: "UpstreamTimeout", message: "slow" }, retryAt: new Date(Date.now() + 3_600_000) });

/** Run the operation as its `jobscope.bulk` job's handler does (lib/jobs/bulk-restart.test.ts runs it on real workers). */
async function finished(operationId: string): Promise<BulkProgress> {
  await runBulkOperation(t.pool, operationId);
  return waitFor("the bulk operation to finish", async () => {
    const p = await getBulkProgress(t.pool, operationId);
    if (!p) throw new Error(`no operation ${operationId}`);
    return p.status !== "running" ? p : null;
  });
}

describe("BULK_EVENTS", () => {
  it("is every event an operator may apply to an existing job, from the table", () => {
    expect([...BULK_EVENTS].sort()).toEqual(["abandon", "cancel", "pause", "replay", "resume", "retry"]);
  });
});

describe("previewBulk", () => {
  it("counts the jobs that will move and the ones skipped, with the reason", async () => {
    const queue = `bulk-${randomUUID().slice(0, 8)}`;
    const queued = [await onQueue(queue), await onQueue(queue)];
    const waiting = await failOnce(await onQueue(queue));
    const cancelled = await onQueue(queue);
    await transition(t.pool, { jobId: cancelled.id, event: "cancel", actor: operator });

    const ids = [...queued, waiting, cancelled].map((j) => j.id);
    const cancel = await previewBulk(t.pool, { selection: { ids: [...ids, randomUUID()] }, event: "cancel", actor: operator });
    expect(cancel).toMatchObject({ total: 5, willApply: 3, capped: false });
    expect(cancel.willSkip).toEqual(
      expect.arrayContaining([
        { reason: "already cancelled", count: 1 },
        { reason: "no such job", count: 1 },
      ]),
    );
    expect(cancel.frozen).toEqual(
      expect.arrayContaining([
        { id: queued[0]!.id, state: "queued", version: 0 },
        { id: waiting.id, state: "retry_wait", version: waiting.stateVersion },
      ]),
    );

    const retry = await previewBulk(t.pool, { selection: { filter: parseJobFilters({ queue }) }, event: "retry", actor: operator });
    expect(retry).toMatchObject({ total: 4, willApply: 1, capped: false });
    expect(retry.frozen.map((j) => j.id)).toEqual([waiting.id]);
    expect(retry.willSkip).toEqual([
      { reason: "already queued", count: 2 },
      { reason: "retry is not allowed from cancelled", count: 1 },
    ]);

    // The state tab is part of the filter.
    const onlyQueued = await previewBulk(t.pool, {
      selection: { filter: parseJobFilters({ queue, state: "queued" }) },
      event: "cancel",
      actor: operator,
    });
    expect(onlyQueued).toMatchObject({ total: 2, willApply: 2 });
  });

  it("selects a job replayed and dead again once, at the version of its last death", async () => {
    const queue = `bulk-${randomUUID().slice(0, 8)}`;
    const die = (job: JobRow) => runAndEnd(t.pool, job, "abandon", { error: { class: "Boom", message: "x" } });
    const once = await die(await onQueue(queue));
    const twice = await die(await onQueue(queue));
    await transition(t.pool, { jobId: twice.id, event: "replay", actor: operator });
    const again = await die(twice);
    const p = await previewBulk(t.pool, { selection: { filter: parseJobFilters({ queue, state: "dead" }) }, event: "replay", actor: operator });
    expect(p).toMatchObject({ total: 2, willApply: 2, capped: false });
    expect(p.frozen).toEqual([
      { id: twice.id, state: "dead", version: again.stateVersion },
      { id: once.id, state: "dead", version: once.stateVersion },
    ]);
  });

  it("marks a selection above the cap as capped and takes no more than the cap", async () => {
    const ids = Array.from({ length: BULK_CAP + 1 }, () => randomUUID());
    const p = await previewBulk(t.pool, { selection: { ids }, event: "cancel", actor: operator });
    expect(p).toMatchObject({ total: BULK_CAP, willApply: 0, capped: true, willSkip: [{ reason: "no such job", count: BULK_CAP }] });
  });
});

describe("startBulk", () => {
  it("refuses a job that moved after the dry run as a conflict instead of overwriting it", async () => {
    const [a, b, c] = [await newJob(t.pool), await newJob(t.pool), await newJob(t.pool)];
    const preview = await previewBulk(t.pool, { selection: { ids: [a.id, b.id, c.id] }, event: "cancel", actor: operator });
    expect(preview.willApply).toBe(3);
    // After the dry run, a worker takes `a`: cancelling it now would mean cancelling running work.
    await runJob(t.pool, a);

    const { operationId, jobId } = await startBulk(t.pool, {
      frozen: preview.frozen,
      event: "cancel",
      actor: operator,
      description: "3 selected jobs",
    });
    // Nothing runs in this process: the operation is a built-in job, queued for a worker.
    expect(await getBulkProgress(t.pool, operationId)).toMatchObject({ status: "running", done: 0 });
    const bulkJob = await getJob(t.pool, jobId!);
    expect(bulkJob).toMatchObject({ type: "jobscope.bulk", tenantId: "jobscope", queue: "jobscope", state: "queued", params: { operationId } });
    const p = await finished(operationId);
    expect(p).toMatchObject({ status: "done", total: 3, done: 3, applied: 2 });
    expect(p.refused).toEqual([{ kind: "conflict", count: 1, sampleReason: expect.stringContaining("expected queued at version 0") }]);
    expect(p.finishedAt).toBeInstanceOf(Date);
    expect((await getJob(t.pool, a.id)).state).toBe("running");
    expect((await getJob(t.pool, b.id)).state).toBe("cancelled");
    expect((await getJob(t.pool, c.id)).state).toBe("cancelled");
    const [moved] = await execute(t.pool, sql`SELECT actor_id FROM job_events WHERE job_id = ${b.id} AND event = 'cancel'`);
    expect(moved).toEqual({ actorId: operator.id });
  });

  it("applies to the frozen selection only: a job enqueued after the dry run is not swept in", async () => {
    const queue = `bulk-${randomUUID().slice(0, 8)}`;
    const before = [await failOnce(await onQueue(queue)), await failOnce(await onQueue(queue))];
    const preview = await previewBulk(t.pool, { selection: { filter: parseJobFilters({ queue }) }, event: "abandon", actor: operator });
    const late = await failOnce(await onQueue(queue));

    const { operationId } = await startBulk(t.pool, { frozen: preview.frozen, event: "abandon", actor: operator, description: `queue ${queue}` });
    const p = await finished(operationId);
    expect(p).toMatchObject({ status: "done", total: 2, done: 2, applied: 2, refused: [] });
    for (const j of before) expect((await getJob(t.pool, j.id)).state).toBe("dead");
    expect((await getJob(t.pool, late.id)).state).toBe("retry_wait");
    const items = await execute(t.pool, sql`SELECT job_id FROM bulk_operation_items WHERE operation_id = ${operationId}`);
    expect(items.map((i) => i.jobId as string).sort()).toEqual(before.map((j) => j.id).sort());
  });

  it("reports progress whose parts add up to the total, in chunks", async () => {
    const queue = `bulk-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 120; i++) await onQueue(queue);
    const preview = await previewBulk(t.pool, { selection: { filter: parseJobFilters({ queue }) }, event: "cancel", actor: operator });
    // Move a few behind the dry run's back: three cancelled, two claimed and started.
    const [x, y, z, v, w] = preview.frozen;
    for (const j of [x, y, z]) await transition(t.pool, { jobId: j!.id, event: "cancel", actor: operator });
    for (const j of [v, w]) await runJob(t.pool, await getJob(t.pool, j!.id));

    const { operationId } = await startBulk(t.pool, { frozen: preview.frozen, event: "cancel", actor: operator, description: `queue ${queue}` });
    const early = await getBulkProgress(t.pool, operationId);
    expect(early?.total).toBe(120);
    expect(early!.applied + early!.refused.reduce((n, r) => n + r.count, 0)).toBe(early!.done);

    const p = await finished(operationId);
    expect(p).toMatchObject({ status: "done", total: 120, done: 120, applied: 115 });
    expect(p.refused).toEqual([expect.objectContaining({ kind: "conflict", count: 5 })]);
    const [db] = await execute<{ cancelled: number; running: number }>(
      t.pool,
      sql`
      SELECT count(*) FILTER (WHERE state = 'cancelled')::int AS cancelled, count(*) FILTER (WHERE state = 'running')::int AS running
        FROM jobs WHERE queue = ${queue}`,
    );
    expect(db).toEqual({ cancelled: 118, running: 2 });
  });

  it("records an empty selection as done, with no job", async () => {
    const { operationId, jobId } = await startBulk(t.pool, { frozen: [], event: "cancel", actor: operator, description: "nothing" });
    expect(jobId).toBeNull();
    expect(await getBulkProgress(t.pool, operationId)).toMatchObject({ status: "done", total: 0, done: 0 });
  });

  it("settles an item once when two runs of the operation race (a lost lease still running)", async () => {
    const jobs = [];
    for (let i = 0; i < 60; i++) jobs.push(await newJob(t.pool));
    const preview = await previewBulk(t.pool, { selection: { ids: jobs.map((j) => j.id) }, event: "cancel", actor: operator });
    const { operationId } = await startBulk(t.pool, { frozen: preview.frozen, event: "cancel", actor: operator, description: "60 selected jobs" });
    const [a, b] = await Promise.all([runBulkOperation(t.pool, operationId), runBulkOperation(t.pool, operationId)]);
    expect(a.settled + b.settled).toBe(60);
    const p = await finished(operationId);
    expect(p).toMatchObject({ status: "done", total: 60, done: 60, applied: 60, refused: [] });
    const [events] = await execute<{ n: number }>(
      t.pool,
      sql`
      SELECT count(*)::int AS n FROM job_events WHERE job_id = ANY(${sql.param(jobs.map((j) => j.id))}::uuid[]) AND event = 'cancel'`,
    );
    expect(events?.n).toBe(60);
  });

  it("returns null progress for an unknown operation", async () => {
    expect(await getBulkProgress(t.pool, randomUUID())).toBeNull();
    expect(await getBulkProgress(t.pool, "not-a-uuid")).toBeNull();
  });
});
