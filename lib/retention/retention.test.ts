import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const DAY = 86_400_000;
/** A job run to succeeded, every transition back-dated to `daysAgo`. */
async function finishedJob(daysAgo: number, queue: string) {
  const at = new Date(Date.now() - daysAgo * DAY);
  const { job } = await enqueue(t.sql, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue }, api, { at });
  const [c] = await claim(t.sql, { workerId: "w-1", queues: [queue], limit: 1, onlyJobIds: [job.id], at });
  await transition(t.sql, { jobId: job.id, event: "start", actor: worker(), attempt: c!.attempt, at });
  const r = await transition(t.sql, { jobId: job.id, event: "finish", actor: worker(), attempt: c!.attempt, at, result: { ok: 1 } });
  if (!r.ok) throw new Error(r.reason);
  return job.id;
}
const count = async (table: string, id: string) =>
  (await t.sql.unsafe(`SELECT count(*)::int AS n FROM ${table} WHERE ${table === "jobs" ? "id" : "job_id"} = $1`, [id]))[0]!.n as number;

describe("retention", () => {
  it("removes old terminal jobs with their runs and events in batches, archives them, and leaves the rest", async () => {
    const old = [await finishedJob(40, "ret-a"), await finishedJob(41, "ret-a"), await finishedJob(45, "ret-a")];
    const recent = await finishedJob(2, "ret-a");
    const { job: live } = await enqueue(t.sql, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: "ret-a" }, api, { at: new Date(Date.now() - 60 * DAY) });

    expect((await runRetention(t.sql, { olderThanDays: 30, dryRun: true })).jobs).toBe(3);
    const r = await runRetention(t.sql, { olderThanDays: 30, batchSize: 2, archive: true });
    expect(r).toMatchObject({ jobs: 3, runs: 3, events: 12, archived: 3, batches: 2 });
    for (const id of old) {
      expect([await count("jobs", id), await count("job_runs", id), await count("job_events", id)]).toEqual([0, 0, 0]);
    }
    const [a] = await t.sql<{ record: { job: { state: string }; runs: unknown[]; events: unknown[] } }[]>`SELECT record FROM job_archive WHERE job_id = ${old[0]!}`;
    expect(a?.record.job.state).toBe("succeeded");
    expect([a?.record.runs.length, a?.record.events.length]).toEqual([1, 4]);
    for (const id of [recent, live.id]) expect(await count("jobs", id)).toBe(1);
    expect(await count("job_events", recent)).toBe(4);
  });

  it("is the only way history can be deleted", async () => {
    const id = await finishedJob(1, "ret-b");
    await expect(t.sql`DELETE FROM job_events WHERE job_id = ${id}`).rejects.toThrow(/append-only/);
    await expect(t.sql`DELETE FROM job_runs WHERE job_id = ${id}`).rejects.toThrow(/append-only/);
    await expect(t.sql`UPDATE job_events SET actor_id = 'x' WHERE job_id = ${id}`).rejects.toThrow(/append-only/);
  });

  it("refuses a nonsensical window or batch before touching anything", async () => {
    await expect(runRetention(t.sql, { olderThanDays: 0 })).rejects.toThrow(/positive/);
    await expect(runRetention(t.sql, { olderThanDays: 30, batchSize: 0 })).rejects.toThrow(/batchSize/);
  });
});
