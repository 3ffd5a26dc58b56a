import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { dailyPartitionName, ensureEventPartitions } from "../db/partitions";
import { createTestDb, type TestDb } from "../db/test-db";
import { claim } from "../jobs/claim";
import { enqueue } from "../jobs/enqueue";
import { api, seedTenants, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { runRetention } from "./retention";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await seedTenants(t.sql);
});
afterAll(() => t.close());
// Every test starts with a daily partition for each of the last 60 days (retention drops the empty ones).
beforeEach(async () => {
  await ensureEventPartitions(t.sql, { daysBack: 60 });
});

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
let n = 0;
const submit = async (at: Date) =>
  (await enqueue(t.sql, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: `rp-${++n}` }, api, { at })).job;
/** A job submitted `createdDaysAgo` and run to succeeded `finishedDaysAgo` (four events). */
async function finishedJob(createdDaysAgo: number, finishedDaysAgo = createdDaysAgo) {
  const job = await submit(ago(createdDaysAgo));
  const [c] = await claim(t.sql, { workerId: "w-1", queues: [job.queue], limit: 1, onlyJobIds: [job.id], at: ago(createdDaysAgo) });
  await transition(t.sql, { jobId: job.id, event: "start", actor: worker(), attempt: c!.attempt, at: ago(createdDaysAgo) });
  const r = await transition(t.sql, { jobId: job.id, event: "finish", actor: worker(), attempt: c!.attempt, at: ago(finishedDaysAgo), result: { ok: 1 } });
  if (!r.ok) throw new Error(r.reason);
  return job.id;
}
const eventsOf = async (id: string) => (await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${id}`)[0]!.n;
const exists = async (table: string) => (await t.sql<{ r: string | null }[]>`SELECT to_regclass(${table})::text AS r`)[0]!.r !== null;
const snapshot = async () =>
  (await t.sql<{ jobs: number; runs: number; events: number; parts: number; archive: number }[]>`
    SELECT (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM job_runs)::int AS runs, (SELECT count(*) FROM job_events)::int AS events,
           (SELECT count(*) FROM pg_inherits WHERE inhparent = 'job_events'::regclass)::int AS parts, (SELECT count(*) FROM job_archive)::int AS archive`)[0]!;

describe("retention with partitioned events", () => {
  it("dry run reports what would go and writes nothing", async () => {
    const id = await finishedJob(50);
    const before = await snapshot();
    const r = await runRetention(t.sql, { olderThanDays: 30, dryRun: true, archive: true });
    expect(r).toMatchObject({ jobs: 1, runs: 1 });
    expect(r.partitions.find((p) => p.name === dailyPartitionName(ago(50)))).toMatchObject({ action: "dropped", events: 4 });
    expect(await snapshot()).toEqual(before);
    expect(await eventsOf(id)).toBe(4);
  });

  it("drops a day whose jobs are all old and terminal, with its rows, after archiving them", async () => {
    const old = [await finishedJob(50), await finishedJob(50)];
    const recent = await finishedJob(2);
    const part = dailyPartitionName(ago(50));
    expect(await exists(part)).toBe(true);
    const r = await runRetention(t.sql, { olderThanDays: 30, archive: true });
    // The dry run's job is old too: three jobs, all of whose events were in the dropped day.
    expect(r).toMatchObject({ jobs: 3, runs: 3, archived: 3, events: 0 });
    expect(r.partitions.find((p) => p.name === part)).toEqual(expect.objectContaining({ action: "dropped", events: 12 }));
    expect(r.partitionsKept).toBe(0);
    // Every empty day older than the cutoff went too (31..60 days ago: 30 days, give or take the boundary day).
    expect(r.partitionsDropped).toBeGreaterThanOrEqual(29);
    expect(r.eventsDropped).toBe(12);
    expect(await exists(part)).toBe(false);
    for (const id of old) expect(await eventsOf(id)).toBe(0);
    const [a] = await t.sql<{ record: { events: unknown[] } }[]>`SELECT record FROM job_archive WHERE job_id = ${old[0]!}`;
    expect(a?.record.events).toHaveLength(4);
    expect(await eventsOf(recent)).toBe(4);
    // The days after the cutoff stay.
    expect(await exists(dailyPartitionName(ago(2)))).toBe(true);
  });

  it("keeps a day that still holds a live job's events and deletes only the gone jobs' events there", async () => {
    const part = dailyPartitionName(ago(45));
    const gone = [await finishedJob(45), await finishedJob(45), await finishedJob(45)];
    const live = await submit(ago(45));
    const lateFinisher = await finishedJob(45, 1); // created in that day, finished after the cutoff
    const r = await runRetention(t.sql, { olderThanDays: 30, batchSize: 2 });
    expect(r).toMatchObject({ jobs: 3, runs: 3 });
    const v = r.partitions.find((p) => p.name === part);
    expect(v).toMatchObject({ action: "kept", events: 12 });
    expect(v?.reason).toMatch(/^2 job\(s\) still live or finished after the cutoff/);
    expect(r.partitionsKept).toBe(1);
    expect(r.events).toBe(12);
    expect(await exists(part)).toBe(true);
    for (const id of gone) expect(await eventsOf(id)).toBe(0);
    expect([await eventsOf(live.id), await eventsOf(lateFinisher)]).toEqual([1, 4]);
    // The day before, empty, went.
    expect(await exists(dailyPartitionName(ago(46)))).toBe(false);
    // lateFinisher's finish event is in its own day (yesterday).
    const [{ n } = { n: 0 }] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${lateFinisher} AND at > now() - interval '2 days'`;
    expect(n).toBe(1);
  });

  it("deletes row by row everywhere when told not to drop partitions", async () => {
    const id = await finishedJob(55);
    const r = await runRetention(t.sql, { olderThanDays: 30, dropPartitions: false });
    expect(r).toMatchObject({ jobs: 1, events: 4, partitionsDropped: 0, partitions: [] });
    expect(await eventsOf(id)).toBe(0);
    expect(await exists(dailyPartitionName(ago(55)))).toBe(true);
  });
});
