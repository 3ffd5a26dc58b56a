import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { History, OPERATOR } from "../demo/history";
import { api } from "../jobs/test-helpers";
import { runRetention } from "./retention";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const DAY = 86_400_000;
const MIN = 60_000;
const ago = (days: number) => Date.now() - days * DAY;
const report = { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
let n = 0;
/** A job submitted `daysAgo` on a queue of its own. */
const submit = (daysAgo: number) => new History(t.pool, ago(daysAgo)).submit({ ...report, queue: `ret-${++n}` }, api);
/** Submitted `daysAgo`, one failed attempt retried by the supervisor (a job_log row), then finished by a worker. */
async function finishedJob(daysAgo: number) {
  const h = await submit(daysAgo);
  await (await h.run("w-1", MIN)).fail(MIN, { class: "UpstreamTimeout", message: "timed out" }, MIN);
  await (await h.run("w-1", MIN)).step("finish", MIN);
  return h.id;
}

/** Where a job's rows are: catalog, live row, attempts, job_log rows, and what the read model shows. */
async function rowsOf(id: string) {
  const [r] = await execute<{ catalog: number; live: number; attempts: number; log: number; events: number; runs: number }>(
    t.pool,
    sql`
    SELECT (SELECT count(*) FROM job_catalog WHERE id = ${id})::int AS catalog, (SELECT count(*) FROM jobs_live WHERE id = ${id})::int AS live,
           (SELECT count(*) FROM job_attempts WHERE job_id = ${id})::int AS attempts, (SELECT count(*) FROM job_log WHERE job_id = ${id})::int AS log,
           (SELECT count(*) FROM job_events WHERE job_id = ${id})::int AS events, (SELECT count(*) FROM job_runs WHERE job_id = ${id})::int AS runs`,
  );
  return r!;
}

describe("retention", () => {
  it("removes old finished jobs with their whole history in batches, archives them, and keeps live and recent ones whole", async () => {
    const old = [await finishedJob(40), await finishedJob(41), await finishedJob(45)];
    // Finished by a transition no worker applied: only a catalog row and a job_log row.
    const cancelled = await (await submit(42)).step("cancel", MIN, OPERATOR);
    // Dead 50 days ago, replayed 45 days ago and finished then: its last transition is the old finish.
    const replayedOld = await submit(50);
    await (await replayedOld.run("w-1", MIN)).step("abandon", MIN, undefined, { error: { class: "PermanentError", message: "410" } });
    await replayedOld.step("replay", 5 * DAY, OPERATOR);
    await (await replayedOld.run("w-1", MIN)).step("finish", MIN);
    // Dead 50 days ago and replayed yesterday: live again, its old finish is not its last transition.
    const revived = await submit(50);
    await (await revived.run("w-1", MIN)).step("abandon", MIN, undefined, { error: { class: "PermanentError", message: "410" } });
    await revived.step("replay", 49 * DAY, OPERATOR);
    // Dead long ago, replayed and finished again recently.
    const refinished = await submit(50);
    await (await refinished.run("w-1", MIN)).step("abandon", MIN, undefined, { error: { class: "PermanentError", message: "410" } });
    await refinished.step("replay", 48 * DAY, OPERATOR);
    await (await refinished.run("w-1", MIN)).step("finish", MIN);
    const recent = await finishedJob(2);
    const live = await submit(60);
    const kept = [revived.id, refinished.id, recent, live.id];
    const before = await Promise.all(kept.map(rowsOf));

    const dry = await runRetention(t.pool, { olderThanDays: 30, dryRun: true, batchSize: 2 });
    expect(dry).toMatchObject({ jobs: 5, runs: 8, events: 5 });
    expect(await rowsOf(old[0]!)).toMatchObject({ catalog: 1, attempts: 2, log: 1 });

    const r = await runRetention(t.pool, { olderThanDays: 30, batchSize: 2, archive: true });
    // Three jobs of two attempts and a retry each, the cancelled one (one job_log row), the replayed one (two attempts, a replay).
    expect(r).toMatchObject({ jobs: 5, runs: 8, events: 5, archived: 5 });
    // Every finishing transition older than the cutoff was read once: eight of them (the replayed jobs' first deaths too).
    expect(r.batches).toBe(4);
    for (const id of [...old, cancelled.id, replayedOld.id]) {
      expect(await rowsOf(id)).toEqual({ catalog: 0, live: 0, attempts: 0, log: 0, events: 0, runs: 0 });
    }
    expect(await Promise.all(kept.map(rowsOf))).toEqual(before);
    expect(before[0]).toMatchObject({ catalog: 1, live: 1, attempts: 1, log: 1 });

    const [a] = await execute<{
      record: { catalog: { id: string; type: string }; attempts: { outcome: string }[]; events: { event: string }[] };
      finishedAt: Date;
    }>(
      t.pool,
      sql`
      SELECT record, finished_at FROM job_archive WHERE job_id = ${old[0]!}`,
    );
    expect(a?.record.catalog).toMatchObject({ id: old[0], type: "report.generate" });
    expect(a?.record.attempts.map((x) => x.outcome)).toEqual(["failed", "succeeded"]);
    expect(a?.record.events.map((e) => e.event)).toEqual(["submit", "claim", "start", "fail", "retry", "claim", "start", "finish"]);
    expect(Date.now() - a!.finishedAt.getTime()).toBeGreaterThan(39 * DAY);

    // Nothing left to do.
    expect(await runRetention(t.pool, { olderThanDays: 30 })).toMatchObject({ jobs: 0, runs: 0, events: 0 });
  });

  it("a bounded run stops after its batches; the next one carries on", async () => {
    const ids = [await finishedJob(70), await finishedJob(71), await finishedJob(72)];
    expect(await runRetention(t.pool, { olderThanDays: 30, batchSize: 1, maxBatches: 2 })).toMatchObject({ jobs: 2, batches: 2 });
    expect((await Promise.all(ids.map(rowsOf))).map((r) => r.catalog)).toEqual([1, 0, 0]);
    expect(await runRetention(t.pool, { olderThanDays: 30, batchSize: 1 })).toMatchObject({ jobs: 1 });
  });

  it("is the only way history can be deleted", async () => {
    const id = await finishedJob(1);
    await expect(execute(t.pool, sql`DELETE FROM job_log WHERE job_id = ${id}`)).rejects.toThrow(/append-only/);
    await expect(execute(t.pool, sql`DELETE FROM job_attempts WHERE job_id = ${id}`)).rejects.toThrow(/append-only/);
    await expect(execute(t.pool, sql`DELETE FROM job_catalog WHERE id = ${id}`)).rejects.toThrow(/append-only/);
    await expect(execute(t.pool, sql`UPDATE job_log SET actor_id = 'x' WHERE job_id = ${id}`)).rejects.toThrow(/append-only/);
    await expect(execute(t.pool, sql`UPDATE job_attempts SET worker_id = 'x' WHERE job_id = ${id}`)).rejects.toThrow(/append-only/);
    expect(await rowsOf(id)).toMatchObject({ catalog: 1, attempts: 2, log: 1 });
  });

  it("refuses a nonsensical window or batch before touching anything", async () => {
    await expect(runRetention(t.pool, { olderThanDays: 0 })).rejects.toThrow(/positive/);
    await expect(runRetention(t.pool, { olderThanDays: 30, batchSize: 0 })).rejects.toThrow(/batchSize/);
  });
});
