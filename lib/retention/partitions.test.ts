import { beforeEach, describe, expect, it } from "vitest";
import { dailyPartitionName, ensureEventPartitions } from "../db/partitions";
import { setupTestDb } from "../db/test-db";
import { History } from "../demo/history";
import { api, rowLocksDuring } from "../jobs/test-helpers";
import { runRetention } from "./retention";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
// Every test starts with a daily partition for each of the last 60 days (retention drops the empty ones).
beforeEach(async () => {
  await ensureEventPartitions(t.pool, { daysBack: 60 });
});

const DAY = 86_400_000;
const MIN = 60_000;
/** Midday (UTC) of the day `days` ago: a history's few minutes of steps stay in that day's partition whatever the hour the test runs. */
const ago = (days: number) => {
  const d = new Date(Date.now() - days * DAY);
  d.setUTCHours(12, 0, 0, 0);
  return d;
};
let n = 0;
const submit = (at: Date) =>
  new History(t.pool, at.getTime()).submit(
    { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: `rp-${++n}` },
    api,
  );
/** Submitted `createdDaysAgo`, failed once and retried by the supervisor then (one job_log row, in that day's partition). */
async function retried(createdDaysAgo: number) {
  const h = await submit(ago(createdDaysAgo));
  return (await h.run("w-1", MIN)).fail(MIN, { class: "UpstreamTimeout", message: "timed out" }, MIN);
}
/** …and finished by a worker `finishedDaysAgo` (two attempts, one job_log row, eight transitions). */
async function finishedJob(createdDaysAgo: number, finishedDaysAgo = createdDaysAgo) {
  const h = await (await retried(createdDaysAgo)).run("w-1", MIN);
  await h.step("finish", Math.max(MIN, (createdDaysAgo - finishedDaysAgo) * DAY));
  return h.id;
}
const logOf = async (id: string) => (await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM job_log WHERE job_id = ${id}`))[0]!.n;
const exists = async (table: string) => (await execute<{ r: string | null }>(t.pool, sql`SELECT to_regclass(${table})::text AS r`))[0]!.r !== null;
const snapshot = async () =>
  (
    await execute<{ jobs: number; attempts: number; log: number; parts: number; archive: number }>(
      t.pool,
      sql`
    SELECT (SELECT count(*) FROM job_catalog)::int AS jobs, (SELECT count(*) FROM job_attempts)::int AS attempts, (SELECT count(*) FROM job_log)::int AS log,
           (SELECT count(*) FROM pg_inherits WHERE inhparent = 'job_log'::regclass)::int AS parts, (SELECT count(*) FROM job_archive)::int AS archive`,
    )
  )[0]!;

describe("retention with job_log's day partitions", () => {
  it("dry run reports what would go and writes nothing", async () => {
    const id = await finishedJob(50);
    const before = await snapshot();
    const r = await runRetention(t.pool, { olderThanDays: 30, dryRun: true, archive: true });
    expect(r).toMatchObject({ jobs: 1, runs: 2, events: 0 });
    expect(r.partitions.find((p) => p.name === dailyPartitionName(ago(50)))).toMatchObject({ action: "dropped", events: 1 });
    expect(await snapshot()).toEqual(before);
    expect(await logOf(id)).toBe(1);
  });

  it("drops a day whose jobs are all old and finished, with its rows, after archiving them", async () => {
    const old = [await finishedJob(50), await finishedJob(50)];
    const recent = await finishedJob(2);
    const part = dailyPartitionName(ago(50));
    expect(await exists(part)).toBe(true);
    const r = await runRetention(t.pool, { olderThanDays: 30, archive: true });
    // The dry run's job is old too: three jobs, all of whose job_log rows were in the dropped day.
    expect(r).toMatchObject({ jobs: 3, runs: 6, archived: 3, events: 0 });
    expect(r.partitions.find((p) => p.name === part)).toEqual(expect.objectContaining({ action: "dropped", events: 3 }));
    expect(r.partitionsKept).toBe(0);
    // Every empty day older than the cutoff went too (31..60 days ago: 30 days, give or take the boundary day).
    expect(r.partitionsDropped).toBeGreaterThanOrEqual(29);
    expect(r.eventsDropped).toBe(3);
    expect(await exists(part)).toBe(false);
    for (const id of old) expect(await logOf(id)).toBe(0);
    const [a] = await execute<{ record: { events: unknown[]; attempts: unknown[] } }>(
      t.pool,
      sql`SELECT record FROM job_archive WHERE job_id = ${old[0]!}`,
    );
    expect([a?.record.attempts.length, a?.record.events.length]).toEqual([2, 8]);
    expect(await logOf(recent)).toBe(1);
    // The days after the cutoff stay.
    expect(await exists(dailyPartitionName(ago(2)))).toBe(true);
  });

  it("keeps a day that still holds a live job's rows and deletes only the gone jobs' rows there", async () => {
    const part = dailyPartitionName(ago(45));
    const gone = [await finishedJob(45), await finishedJob(45), await finishedJob(45)];
    const live = await retried(45);
    const lateFinisher = await finishedJob(45, 1); // its retry in that day, its finish after the cutoff
    const r = await runRetention(t.pool, { olderThanDays: 30, batchSize: 2 });
    expect(r).toMatchObject({ jobs: 3, runs: 6 });
    const v = r.partitions.find((p) => p.name === part);
    expect(v).toMatchObject({ action: "kept", events: 3 });
    expect(v?.reason).toMatch(/^2 job\(s\) still live or finished after the cutoff/);
    expect(r.partitionsKept).toBe(1);
    expect(r.events).toBe(3);
    expect(await exists(part)).toBe(true);
    for (const id of gone) expect(await logOf(id)).toBe(0);
    expect([await logOf(live.id), await logOf(lateFinisher)]).toEqual([1, 1]);
    // The day before, empty, went.
    expect(await exists(dailyPartitionName(ago(46)))).toBe(false);
    const [{ n: attempts } = { n: 0 }] = await execute<{ n: number }>(
      t.pool,
      sql`SELECT count(*)::int AS n FROM job_attempts WHERE job_id = ${lateFinisher}`,
    );
    expect(attempts).toBe(2);
  });

  it("deletes row by row everywhere when told not to drop partitions", async () => {
    const id = await finishedJob(55);
    const { locks, result: r } = await rowLocksDuring(t.pool, "job_log", () => runRetention(t.pool, { olderThanDays: 30, dropPartitions: false }));
    // Its deletes of history take no row lock first (the guard is an AFTER trigger: drizzle/0030).
    expect(locks).toBe(0);
    expect(r).toMatchObject({ jobs: 1, events: 1, partitionsDropped: 0, partitions: [] });
    expect(await logOf(id)).toBe(0);
    expect(await exists(dailyPartitionName(ago(55)))).toBe(true);
  });
});
