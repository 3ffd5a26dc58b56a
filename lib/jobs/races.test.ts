import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { waitForLockWaiters } from "../db/test-wait";
import { claim } from "./claim";
import { checkJobIntegrity, getJob, newJob, operator, rejectionsOf, runJob, supervisor, worker } from "./test-helpers";
import { transition } from "./transition";
import type { TransitionResult } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
// Each contender gets its own connection pool, so the races are real
// concurrent transactions on separate PostgreSQL backends.
const a = t.connect({ max: 1 });
const b = t.connect({ max: 1 });

const ROUNDS = 25;
const outcome = (r: TransitionResult) => (r.ok ? "applied" : r.kind);

describe("the races of seed 000: exactly one wins, the loser learns the current state", () => {
  it("a late worker's finish racing the supervisor's reclaim", async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const job = await runJob(t.pool, await newJob(t.pool));
      const expected = { state: job.state, version: job.stateVersion };
      const [fin, rec] = await Promise.all([
        transition(a, { jobId: job.id, event: "finish", actor: worker(), attempt: 1, expected }),
        transition(b, { jobId: job.id, event: "reclaim", actor: supervisor, expected, staleBefore: new Date(Date.now() + 60_000) }),
      ]);
      expect([outcome(fin), outcome(rec)].sort()).toEqual(["applied", "conflict"]);
      const loser = fin.ok ? rec : fin;
      const row = await getJob(t.pool, job.id);
      expect(loser.ok ? null : loser.current?.state).toBe(row.state);
      expect(row.state).toBe(fin.ok ? "succeeded" : "queued");
      expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
    }
  });

  it("a tenant's cancel racing the worker's finish", async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const job = await runJob(t.pool, await newJob(t.pool));
      const expected = { state: job.state, version: job.stateVersion };
      const [cancel, fin] = await Promise.all([
        transition(a, { jobId: job.id, event: "cancel", actor: { kind: "tenant", id: "acme-user" }, expected }),
        transition(b, { jobId: job.id, event: "finish", actor: worker(), attempt: 1, expected }),
      ]);
      expect([outcome(cancel), outcome(fin)].sort()).toEqual(["applied", "conflict"]);
      const row = await getJob(t.pool, job.id);
      expect(row.state).toBe(cancel.ok ? "cancelling" : "succeeded");
      const loser = cancel.ok ? fin : cancel;
      expect(loser.ok ? null : loser.current?.state).toBe(row.state);
    }
  });

  it("two claimers on one job: one claims attempt 1, the other gets nothing", async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const job = await newJob(t.pool);
      const [x, y] = await Promise.all([
        claim(a, { workerId: "w-a", queues: [job.queue], limit: 1 }),
        claim(b, { workerId: "w-b", queues: [job.queue], limit: 1 }),
      ]);
      expect(x.length + y.length).toBe(1);
      const row = await getJob(t.pool, job.id);
      expect(row).toMatchObject({ state: "claimed", attempt: 1, leaseOwner: x.length ? "w-a" : "w-b" });
      expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
    }
  });

  it("a blocked writer re-checks the guard after the winner commits (EvalPlanQual), not before", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    const expected = { state: job.state, version: job.stateVersion };
    // Hold the row locked in an open transaction, as a slow winner would.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const winner = a.transaction(async (tx) => {
      await execute(tx, sql`SELECT set_config('jobscope.write_path', 'on', true)`);
      await execute(tx, sql`UPDATE jobs_live SET state = 'paused', state_version = state_version + 1 WHERE id = ${job.id}`);
      locked();
      await held;
    });
    await isLocked;
    const late = transition(b, { jobId: job.id, event: "finish", actor: worker(), attempt: 1, expected });
    // The late writer's guarded UPDATE now waits on the row the winner holds.
    await waitForLockWaiters(t.pool, 1);
    release();
    await winner;
    expect(await late).toMatchObject({ ok: false, kind: "conflict", current: { state: "paused" } });
  });
});

describe("seed 001: the stale worker", () => {
  it("both read version 7, the reclaim lands first, the late finish changes nothing", async () => {
    const job = await newJob(t.pool);
    await runJob(t.pool, job, "w-14");
    await transition(t.pool, { jobId: job.id, event: "reclaim", actor: supervisor, staleBefore: new Date(Date.now() + 1000) });
    await runJob(t.pool, job, "w-14");
    await transition(t.pool, { jobId: job.id, event: "pause", actor: operator });
    await transition(t.pool, { jobId: job.id, event: "resume", actor: operator });
    const seenByWorker = await getJob(a, job.id);
    const seenBySupervisor = await getJob(b, job.id);
    expect([seenByWorker.stateVersion, seenBySupervisor.stateVersion]).toEqual([7, 7]);

    const rec = await transition(b, {
      jobId: job.id,
      event: "reclaim",
      actor: supervisor,
      expected: { state: "running", version: 7 },
      staleBefore: new Date(Date.now() + 1000),
    });
    expect(rec).toMatchObject({ ok: true, job: { state: "queued", stateVersion: 8 } });
    const before = await getJob(t.pool, job.id);
    const fin = await transition(a, {
      jobId: job.id,
      event: "finish",
      actor: worker("w-14"),
      attempt: 2,
      expected: { state: "running", version: 7 },
      result: { zombie: true },
    });
    expect(fin).toMatchObject({
      ok: false,
      kind: "conflict",
      current: { state: "queued", stateVersion: 8, movedBy: { actorKind: "supervisor", event: "reclaim" } },
    });
    expect(await getJob(t.pool, job.id)).toEqual(before);
    const runs = await execute(t.pool, sql`SELECT attempt, outcome, result FROM job_runs WHERE job_id = ${job.id} ORDER BY attempt`);
    expect(runs).toEqual([
      { attempt: 1, outcome: "lease_expired", result: null },
      { attempt: 2, outcome: "lease_expired", result: null },
    ]);
    expect((await rejectionsOf(t.pool, job.id)).map((r) => [r.kind, r.event, r.actorId])).toEqual([["conflict", "finish", "w-14"]]);
  });
});

describe("drift", () => {
  it("is reported when the version matches but the state does not, and is recorded", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    // An incident-time manual UPDATE that bypasses the direct-write trigger.
    await t.pool.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      await execute(tx, sql`UPDATE jobs_live SET state = 'paused' WHERE id = ${job.id}`);
    });
    const r = await transition(t.pool, { jobId: job.id, event: "pause", actor: operator, expected: { state: "running", version: job.stateVersion } });
    expect(r).toMatchObject({ ok: false, kind: "drift", current: { state: "paused", stateVersion: job.stateVersion } });
    expect((await rejectionsOf(t.pool, job.id)).map((x) => x.kind)).toEqual(["drift"]);
  });
});
