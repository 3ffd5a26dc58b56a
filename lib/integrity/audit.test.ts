import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../db/test-db";
import { claim } from "../jobs/claim";
import { newJob, operator, runJob, seedTenants, supervisor, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { auditJobs, recentAudits, runIncrementalAudit } from "./audit";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await seedTenants(t.sql);
});
afterAll(() => t.close());

/** A few jobs through most paths: success, fail + retry, reclaim, cancel while running, dead + replay, release. */
async function someHistory() {
  const ids: string[] = [];
  const a = await runJob(t.sql, await newJob(t.sql));
  await transition(t.sql, { jobId: a.id, event: "finish", actor: worker(), attempt: 1, result: { ok: 1 } });
  ids.push(a.id);
  const b = await runJob(t.sql, await newJob(t.sql));
  await transition(t.sql, { jobId: b.id, event: "fail", actor: worker(), attempt: 1, error: { class: "E", message: "x" } });
  await transition(t.sql, { jobId: b.id, event: "retry", actor: supervisor });
  ids.push(b.id);
  const c = await runJob(t.sql, await newJob(t.sql));
  await transition(t.sql, { jobId: c.id, event: "reclaim", actor: supervisor });
  ids.push(c.id);
  const d = await runJob(t.sql, await newJob(t.sql));
  await transition(t.sql, { jobId: d.id, event: "cancel", actor: operator });
  await transition(t.sql, { jobId: d.id, event: "stop", actor: worker(), attempt: 1 });
  ids.push(d.id);
  const e = await runJob(t.sql, await newJob(t.sql, { maxAttempts: 1 }));
  await transition(t.sql, { jobId: e.id, event: "abandon", actor: worker(), attempt: 1, error: { class: "P", message: "410" } });
  await transition(t.sql, { jobId: e.id, event: "replay", actor: operator });
  ids.push(e.id);
  const f = await newJob(t.sql);
  await claim(t.sql, { workerId: "w-1", queues: [f.queue], limit: 1 });
  await transition(t.sql, { jobId: f.id, event: "release", actor: worker(), attempt: 1 });
  ids.push(f.id);
  return ids;
}

describe("the integrity audit", () => {
  it("finds nothing wrong with histories written through the write path", async () => {
    const ids = await someHistory();
    const r = await auditJobs(t.sql, ids);
    expect(r.mismatches).toEqual([]);
    expect(r.jobs).toBe(ids.length);
    expect(r.events).toBeGreaterThan(ids.length * 3);
  });

  it("reports a row changed behind the write path's back, and a run record closed wrongly, with the job ids", async () => {
    const [rowId, runId, okId] = await someHistory();
    await t.sql.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`UPDATE jobs SET state = 'queued', lease_owner = NULL, finished_at = NULL WHERE id = ${rowId!}`;
      await tx`UPDATE job_runs SET outcome = 'succeeded' WHERE job_id = ${runId!} AND attempt = 1`;
    });
    const r = await auditJobs(t.sql, [okId!, rowId!, runId!]);
    expect(r.mismatches.map((m) => m.jobId).sort()).toEqual([rowId!, runId!].sort());
    expect(r.mismatches.find((m) => m.jobId === rowId)?.problem).toMatch(/row is queued.*replays to succeeded/);
    expect(r.mismatches.find((m) => m.jobId === runId)?.problem).toMatch(/run 1: outcome succeeded, the log says failed/);
  });

  it("is incremental: each stored audit starts where the last one ended and reads only jobs with newer events", async () => {
    const first = await runIncrementalAudit(t.sql, { actor: "test", lagMs: 0 });
    expect(first.jobsChecked).toBeGreaterThan(0);
    const fresh = await newJob(t.sql);
    const second = await runIncrementalAudit(t.sql, { actor: "test", lagMs: 0 });
    expect(second.windowFrom).toEqual(first.windowTo);
    expect(second.jobsChecked).toBe(1);
    expect(second.mismatches).toEqual([]);
    const stored = await recentAudits(t.sql, 2);
    expect(stored.map((s) => s.id)).toEqual([second.id, first.id]);
    expect(stored[1]!.mismatches).toBe(2); // the two tampered jobs of the previous test
    expect(stored[1]!.details.length).toBe(2);
    expect(fresh.id).toBeTruthy();
  });
});
