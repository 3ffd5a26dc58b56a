import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "../jobs/claim";
import { newJob, operator, runJob, supervisor, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { checkJobs, recentChecks, runIncrementalCheck } from "./check";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

/** A few jobs through most paths: success, fail + retry, reclaim, cancel while running, dead + replay, release. */
async function someHistory() {
  const ids: string[] = [];
  const a = await runJob(t.pool, await newJob(t.pool));
  await transition(t.pool, { jobId: a.id, event: "finish", actor: worker(), attempt: 1, result: { ok: 1 } });
  ids.push(a.id);
  const b = await runJob(t.pool, await newJob(t.pool));
  await transition(t.pool, { jobId: b.id, event: "fail", actor: worker(), attempt: 1, error: { class: "E", message: "x" } });
  await transition(t.pool, { jobId: b.id, event: "retry", actor: supervisor });
  ids.push(b.id);
  const c = await runJob(t.pool, await newJob(t.pool));
  await transition(t.pool, { jobId: c.id, event: "reclaim", actor: supervisor });
  ids.push(c.id);
  const d = await runJob(t.pool, await newJob(t.pool));
  await transition(t.pool, { jobId: d.id, event: "cancel", actor: operator });
  await transition(t.pool, { jobId: d.id, event: "stop", actor: worker(), attempt: 1 });
  ids.push(d.id);
  const e = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 1 }));
  await transition(t.pool, { jobId: e.id, event: "abandon", actor: worker(), attempt: 1, error: { class: "P", message: "410" } });
  await transition(t.pool, { jobId: e.id, event: "replay", actor: operator });
  ids.push(e.id);
  const f = await newJob(t.pool);
  await claim(t.pool, { workerId: "w-1", queues: [f.queue], limit: 1 });
  await transition(t.pool, { jobId: f.id, event: "release", actor: worker(), attempt: 1 });
  ids.push(f.id);
  return ids;
}

describe("the integrity check", () => {
  it("finds nothing wrong with histories written through the write path", async () => {
    const ids = await someHistory();
    const r = await checkJobs(t.pool, ids);
    expect(r.mismatches).toEqual([]);
    expect(r.jobs).toBe(ids.length);
    expect(r.events).toBeGreaterThan(ids.length * 3);
  });

  it("reports each stored row changed behind the write path's back — live row, attempt, job_log row — with the job ids", async () => {
    const [finished, retried, reclaimed, cancelled, , released] = await someHistory();
    const [okId] = await someHistory();
    await t.pool.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      // A live row moved by hand: the state changes, the version does not.
      await execute(tx, sql`UPDATE jobs_live SET state = 'retry_wait' WHERE id = ${reclaimed!}`);
      // An attempt whose outcome was rewritten: its closing event still says fail.
      await execute(tx, sql`UPDATE job_attempts SET outcome = 'succeeded', error_class = NULL WHERE job_id = ${retried!} AND attempt = 1`);
      // A finished job's closing event rewritten on its attempt: its state (the last transition) says dead.
      await execute(tx, sql`UPDATE job_attempts SET end_to = 'dead' WHERE job_id = ${finished!} AND attempt = 1`);
      // An operator's cancel rewritten in job_log.
      await execute(tx, sql`UPDATE job_log SET to_state = 'paused' WHERE job_id = ${cancelled!} AND event = 'cancel'`);
      // A live row deleted: no row, and a history that did not finish it.
      await execute(tx, sql`DELETE FROM jobs_live WHERE id = ${released!}`);
    });
    const tampered = [finished!, retried!, reclaimed!, cancelled!, released!];
    const r = await checkJobs(t.pool, [okId!, ...tampered]);
    const problems = (id: string) => r.mismatches.filter((m) => m.jobId === id).map((m) => m.problem);
    expect([...new Set(r.mismatches.map((m) => m.jobId))].sort()).toEqual([...tampered].sort());
    expect(problems(reclaimed!)).toEqual([
      expect.stringMatching(/^row is retry_wait\/attempt 1\/3\/v3, the log rebuilds to queued\/attempt 1\/3\/v3$/),
    ]);
    expect(problems(retried!)).toEqual(["run 1: outcome succeeded, the log says failed"]);
    expect(problems(finished!)).toEqual([expect.stringMatching(/^v3: logged dead\/attempt 1\/v3, rebuilt succeeded\/attempt 1\/v3$/)]);
    expect(problems(cancelled!)).toEqual([expect.stringMatching(/^v3: logged paused\/attempt 1\/v3, rebuilt cancelling\/attempt 1\/v3$/)]);
    expect(problems(released!)).toEqual([expect.stringMatching(/^transitions exist but the job row is missing/)]);
  });

  it("a live row beside a finished history shows the job twice: reported", async () => {
    const [finished] = await someHistory();
    await t.pool.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      await execute(
        tx,
        sql`INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
               SELECT id, tenant_id, type, queue, priority, 'queued', 1, max_attempts, 4, now(), params, created_at, now() FROM job_catalog WHERE id = ${finished!}`,
      );
    });
    const r = await checkJobs(t.pool, [finished!]);
    expect(r.mismatches.map((m) => m.problem)).toContainEqual(expect.stringMatching(/^2 rows: /));
  });

  it("is incremental: each stored check starts where the last one ended and reads the jobs submitted, moved or with an attempt ended since", async () => {
    const first = await runIncrementalCheck(t.pool, { actor: "test", lagMs: 0 });
    expect(first.jobsChecked).toBeGreaterThan(0);
    // A window ends at the database's now() as a JavaScript Date, to the millisecond; a write in the
    // same millisecond (microseconds later than the end) would fall in the next window. 5 ms first.
    const check = () => new Promise((r) => setTimeout(r, 5)).then(() => runIncrementalCheck(t.pool, { actor: "test", lagMs: 0 }));
    // Submitted: found by its catalog row.
    const fresh = await newJob(t.pool);
    const second = await check();
    expect(second.windowFrom).toEqual(first.windowTo);
    expect([second.jobsChecked, second.mismatches]).toEqual([1, []]);
    // Claimed and started: the attempt is open, its transitions are on the live row only; checked when it ends.
    await runJob(t.pool, fresh);
    expect((await check()).jobsChecked).toBe(0);
    await transition(t.pool, { jobId: fresh.id, event: "fail", actor: worker(), attempt: 1, error: { class: "E", message: "x" } });
    const ended = await check();
    expect([ended.jobsChecked, ended.eventsRebuilt, ended.mismatches]).toEqual([1, 4, []]);
    // Moved by someone other than a worker: found by its job_log row.
    await transition(t.pool, { jobId: fresh.id, event: "cancel", actor: operator });
    expect((await check()).jobsChecked).toBe(1);
    const stored = await recentChecks(t.pool, 6);
    expect(stored[0]!.windowFrom).toEqual(stored[1]!.windowTo);
    expect(stored.at(-1)!.id).toBe(first.id);
    // The six tampered jobs of the previous tests (the one shown twice has a second problem: its live row is not what its log rebuilds).
    expect(stored.at(-1)!.mismatches).toBe(7);
    expect(new Set(stored.at(-1)!.details.map((d) => d.jobId)).size).toBe(6);
  });
});
