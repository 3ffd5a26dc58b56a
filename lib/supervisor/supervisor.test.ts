import { describe, expect, it } from "vitest";
import { closeDb, connect } from "../db/client";
import { setupTestDb } from "../db/test-db";
import { waitFor, waitForLockWaiters } from "../db/test-wait";
import { checkJobIntegrity, getJob, newJob, rejectionsOf, runJob, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { withDirectWrites } from "../jobs/direct-write";
import { poisonSuspects } from "../insight/queries";
import { parseJobFilters } from "../jobs/filters";
import { listJobs } from "../jobs/queries";
import { createSupervisor } from "./supervisor";
import { claim } from "../jobs/claim";
import { heartbeat } from "../jobs/heartbeat";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
const other = t.connect({ max: 2 });

/** A worker of its own: the jobs one worker loses together are one crash (lib/jobs/poison.ts), so tests keep theirs apart. */
const lone = () => `w-${Math.random().toString(36).slice(2, 9)}`;

/** Age a job's heartbeat, as a worker that stopped beating would. */
const ageHeartbeat = (id: string, ms: number) =>
  execute(t.pool, sql`UPDATE jobs_live SET heartbeat_at = now() - ${ms} * interval '1 millisecond' WHERE id = ${id}`);

/** Time passes until every one of `ids` that waits out a crash backoff is due. */
const backoffPasses = (ids: string[]) =>
  execute(t.pool, sql`UPDATE jobs_live SET not_before = least(not_before, now()) WHERE id = ANY(${sql.param(ids)}::uuid[])`);

/** Worker `w` (one of its own unless named) takes `jobs` in this order and dies holding them; then `sup` ticks. */
async function crash(sup: ReturnType<typeof createSupervisor>, jobs: { id: string }[], w = lone()) {
  await backoffPasses(jobs.map((j) => j.id));
  for (const j of jobs) await runJob(t.pool, await getJob(t.pool, j.id), w);
  for (const j of jobs) await ageHeartbeat(j.id, 60_000);
  return sup.tick();
}

/** Each job's run records' error classes, in attempt order. */
async function errorClassesOf(...jobs: { id: string }[]): Promise<Record<string, string[]>> {
  const rows = await execute<{ jobId: string; errorClass: string }>(
    t.pool,
    sql`SELECT job_id, error_class FROM job_runs WHERE job_id = ANY(${sql.param(jobs.map((j) => j.id))}::uuid[]) ORDER BY attempt`,
  );
  return Object.fromEntries(jobs.map((j) => [j.id, rows.filter((r) => r.jobId === j.id).map((r) => r.errorClass)]));
}

describe("supervisor", () => {
  it("reclaims a stale running job with attempts left, closing its run as lease_expired", async () => {
    const job = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 3 }), lone());
    await ageHeartbeat(job.id, 60_000);
    const sup = createSupervisor({ db: t.pool, id: "sup-a", staleAfterMs: 10_000 });
    const report = await sup.tick();
    expect(report.reclaimed).toBeGreaterThanOrEqual(1);
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "queued", attempt: 1, leaseOwner: null });
    const [run] = await execute(t.pool, sql`SELECT outcome, error_class FROM job_runs WHERE job_id = ${job.id}`);
    expect(run).toEqual({ outcome: "lease_expired", errorClass: "LeaseExpired" });
  });

  it("abandons instead when the last attempt went stale", async () => {
    const job = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 1 }), lone());
    await ageHeartbeat(job.id, 60_000);
    await createSupervisor({ db: t.pool, staleAfterMs: 10_000 }).tick();
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "dead", attempt: 1 });
    expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
  });

  it("stops handing out a job that keeps crashing its workers: the third crash blamed on it makes it dead as a poison job", async () => {
    // Ten attempts allowed: without poison detection every crash of a worker would put it back in the queue.
    const job = await newJob(t.pool, { maxAttempts: 10 });
    const sup = createSupervisor({ db: t.pool, id: "sup-poison", staleAfterMs: 10_000, poisonCrashes: 3 });
    for (const n of [1, 2]) {
      await crash(sup, [job], `w-crash-${n}-${lone()}`);
      expect(await getJob(t.pool, job.id)).toMatchObject({ state: "queued", attempt: n });
    }
    const third = `w-crash-3-${lone()}`;
    const report = await crash(sup, [job], third);
    expect(report.poisoned).toBe(1);
    expect(await getJob(t.pool, job.id)).toMatchObject({ state: "dead", attempt: 3, maxAttempts: 10, leaseOwner: null });
    const runs = await execute<{ attempt: number; outcome: string; errorClass: string; errorMessage: string }>(
      t.pool,
      sql`
      SELECT attempt, outcome, error_class, error_message FROM job_runs WHERE job_id = ${job.id} ORDER BY attempt`,
    );
    expect(runs.map((r) => [r.outcome, r.errorClass])).toEqual([
      ["lease_expired", "LeaseExpired"],
      ["lease_expired", "LeaseExpired"],
      ["lease_expired", "PoisonJob"],
    ]);
    expect(runs[2]!.errorMessage).toMatch(/3rd worker this job was blamed for crashing.*not handed out again/);
    // Through the normal write path: the event log has the supervisor's abandon, and replaying it gives the row.
    const [event] = await execute<{ event: string; actorId: string; payload: unknown }>(
      t.pool,
      sql`
      SELECT event, actor_id, payload FROM job_events WHERE job_id = ${job.id} ORDER BY state_version DESC LIMIT 1`,
    );
    expect(event).toMatchObject({ event: "abandon", actorId: "sup-poison", payload: { crash: { worker: third, blamed: null, crashes: 3 } } });
    expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
  });

  it("blames one job for a dead worker, the one that started last, and hands the others back with their attempt refunded", async () => {
    const w = `w-died-${Math.random().toString(36).slice(2, 7)}`;
    const a = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 1 }), w);
    const b = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 3 }), w);
    const crasher = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 3 }), w);
    for (const j of [a, b, crasher]) await ageHeartbeat(j.id, 60_000);
    const report = await createSupervisor({ db: t.pool, id: "sup-blame", staleAfterMs: 10_000 }).tick();
    expect(report.rescued).toBeGreaterThanOrEqual(2);
    // The bystanders: back in the queue with the attempt refunded, even `a` on its only attempt.
    expect(await getJob(t.pool, a.id)).toMatchObject({ state: "queued", attempt: 1, maxAttempts: 2 });
    expect(await getJob(t.pool, b.id)).toMatchObject({ state: "queued", attempt: 1, maxAttempts: 4 });
    const [lost] = await execute<{ errorClass: string; errorMessage: string }>(
      t.pool,
      sql`SELECT error_class, error_message FROM job_runs WHERE job_id = ${b.id}`,
    );
    expect(lost).toEqual({ errorClass: "WorkerLost", errorMessage: expect.stringContaining(`blamed on job ${crasher.id}`) });
    const [rescue] = await execute<{ event: string; payload: unknown }>(
      t.pool,
      sql`
      SELECT event, payload FROM job_events WHERE job_id = ${b.id} ORDER BY state_version DESC LIMIT 1`,
    );
    expect(rescue).toEqual({
      event: "rescue",
      payload: expect.objectContaining({ crash: { worker: w, blamed: { jobId: crasher.id, type: crasher.type }, crashes: null } }),
    });
    // The blamed one spends its attempt, as any lost lease does.
    expect(await getJob(t.pool, crasher.id)).toMatchObject({ state: "queued", attempt: 1, maxAttempts: 3 });
    const [blamed] = await execute<{ errorClass: string }>(t.pool, sql`SELECT error_class FROM job_runs WHERE job_id = ${crasher.id}`);
    expect(blamed!.errorClass).toBe("LeaseExpired");
    for (const j of [a, b, crasher]) expect(await checkJobIntegrity(t.pool, j.id)).toEqual([]);
  });

  it("a bystander that died beside a crasher three times is never the poison job: the crasher is, and the bystander keeps its attempts", async () => {
    const crasher = await newJob(t.pool, { maxAttempts: 10 });
    const bystander = await newJob(t.pool, { maxAttempts: 2 });
    const sup = createSupervisor({ db: t.pool, id: "sup-repeat", staleAfterMs: 10_000, poisonCrashes: 3 });
    // The bystander was running first; the crasher starts and takes the process down.
    for (const n of [1, 2, 3]) await crash(sup, [bystander, crasher], `w-repeat-${n}-${lone()}`);
    expect(await getJob(t.pool, crasher.id)).toMatchObject({ state: "dead" });
    const [last] = await execute<{ errorClass: string }>(
      t.pool,
      sql`SELECT error_class FROM job_runs WHERE job_id = ${crasher.id} ORDER BY attempt DESC LIMIT 1`,
    );
    expect(last!.errorClass).toBe("PoisonJob");
    // Three lost attempts, none of them counted: two attempts left of a budget grown to five.
    expect(await getJob(t.pool, bystander.id)).toMatchObject({ state: "queued", attempt: 3, maxAttempts: 5 });
    expect(await errorClassesOf(bystander)).toEqual({ [bystander.id]: ["WorkerLost", "WorkerLost", "WorkerLost"] });
    // The overview's suspects and the jobs list's poison filter show the crasher and what it took down, never the bystander.
    const suspects = (await poisonSuspects(t.pool)).filter((x) => x.jobId === crasher.id || x.jobId === bystander.id);
    expect(suspects.map((x) => [x.jobId, x.crashes, x.poisoned, x.tookDown])).toEqual([[crasher.id, 3, true, 3]]);
    const listed = await listJobs(t.pool, parseJobFilters({ poison: "1", limit: "200" }));
    expect(listed.jobs.map((j) => j.id)).toContain(crasher.id);
    expect(listed.jobs.map((j) => j.id)).not.toContain(bystander.id);
  });

  it("a crasher claimed again in one batch with the bystander of its last crash is blamed again, though both started at the same instant", async () => {
    // The bystander is made first, so it has the lower id: the last tie-break would pick it.
    const bystander = await newJob(t.pool, { maxAttempts: 5 });
    const crasher = await newJob(t.pool, { maxAttempts: 5 });
    const sup = createSupervisor({ db: t.pool, id: "sup-batch", staleAfterMs: 10_000, poisonCrashes: 3 });
    await crash(sup, [bystander, crasher]);
    // Its backoff passed while both waited (no worker was free), and one claim hands both to the next
    // worker: the same claim and start times.
    await backoffPasses([crasher.id]);
    const second = lone();
    await runJob(t.pool, await getJob(t.pool, bystander.id), second);
    await runJob(t.pool, await getJob(t.pool, crasher.id), second);
    await withDirectWrites(t.pool, (tx) =>
      execute(
        tx,
        sql`UPDATE jobs_live SET run_claimed_at = now() - interval '30 seconds', run_started_at = now() - interval '30 seconds',
                        heartbeat_at = now() - interval '60 seconds' WHERE id IN (${bystander.id}, ${crasher.id})`,
      ),
    );
    await sup.tick();
    expect(await errorClassesOf(bystander, crasher)).toEqual({
      [crasher.id]: ["LeaseExpired", "LeaseExpired"],
      [bystander.id]: ["WorkerLost", "WorkerLost"],
    });
  });

  it("hands the job blamed for a crash out again after a backoff, behind its bystanders: claimed together and started at one instant, the bystander blamed first is still not the poison job", async () => {
    // One queue; the bystander is made first, so it has the lower id and takes the blame of the first tie.
    const queue = `q-apart-${lone()}`;
    const bystander = await newJob(t.pool, { queue, maxAttempts: 5 });
    const crasher = await newJob(t.pool, { queue, maxAttempts: 10 });
    const ids = [bystander.id, crasher.id];
    const sup = createSupervisor({ db: t.pool, id: "sup-apart", staleAfterMs: 10_000, poisonCrashes: 3, crashBackoffMs: 60_000 });
    const events: string[] = [];
    for (let round = 0; round < 10 && (await getJob(t.pool, crasher.id)).state !== "dead"; round++) {
      // Time passes until the first of them is due (only the claim's clock: not_before moves back).
      await execute(
        t.pool,
        sql`UPDATE jobs_live SET not_before = not_before - greatest((SELECT min(not_before) FROM jobs_live WHERE id = ANY(${sql.param(ids)}::uuid[]) AND state = 'queued') - now(), interval '0')
             WHERE id = ANY(${sql.param(ids)}::uuid[]) AND state = 'queued'`,
      );
      // A new worker takes, in one claim, whatever of the two is due: started at the same instant.
      const w = lone();
      const claimed = await claim(t.pool, { workerId: w, queues: [queue], limit: 4, startNow: 4, onlyJobIds: ids });
      events.push(claimed.map((j) => (j.id === crasher.id ? "crasher" : "bystander")).join("+"));
      if (claimed.some((j) => j.id === crasher.id)) {
        for (const j of claimed) await ageHeartbeat(j.id, 60_000);
        await sup.tick();
      } else {
        for (const j of claimed) await transition(t.pool, { jobId: j.id, event: "finish", actor: worker(w), attempt: j.attempt, result: {} });
      }
    }
    // The first crash is a guess and fell on the bystander; apart, every later crash is the crasher's.
    expect(events[0]).toBe("bystander+crasher");
    expect(await getJob(t.pool, crasher.id)).toMatchObject({ state: "dead" });
    expect((await errorClassesOf(crasher))[crasher.id]!.at(-1)).toBe("PoisonJob");
    expect(await getJob(t.pool, bystander.id)).toMatchObject({ state: "succeeded" });
    expect((await errorClassesOf(bystander))[bystander.id]).not.toContain("PoisonJob");
    for (const id of ids) expect(await checkJobIntegrity(t.pool, id)).toEqual([]);
  });

  it("recovers nothing of a worker while the job it would blame is not stale yet: a stopped worker that comes back loses nothing", async () => {
    const sup = createSupervisor({ db: t.pool, id: "sup-stopped", staleAfterMs: 10_000, poisonCrashes: 3 });
    const w = lone();
    const stale = await runJob(t.pool, await getJob(t.pool, (await newJob(t.pool, { maxAttempts: 5 })).id), w);
    // Started last, so the blame of a crash of `w` falls on it; its lease is fresh (claimed just now).
    const fresh = await runJob(t.pool, await getJob(t.pool, (await newJob(t.pool, { maxAttempts: 5 })).id), w);
    await withDirectWrites(t.pool, (tx) =>
      execute(
        tx,
        sql`UPDATE jobs_live SET run_started_at = now() - interval '30 seconds', heartbeat_at = now() - interval '60 seconds' WHERE id = ${stale.id}`,
      ),
    );
    const first = await sup.tick();
    expect([first.reclaimed, first.rescued, first.abandoned]).toEqual([0, 0, 0]);
    expect((await getJob(t.pool, stale.id)).state).toBe("running");
    // The worker was only stopped: it comes back and beats both leases; nothing is recovered after.
    await heartbeat(t.pool, { workerId: w, jobs: [stale, fresh].map((j) => ({ id: j.id, attempt: j.attempt })) });
    const second = await sup.tick();
    expect([second.reclaimed, second.rescued, second.abandoned]).toEqual([0, 0, 0]);
    // Had it died, the blamed lease goes stale too: then the crash is decided, blaming it.
    await ageHeartbeat(stale.id, 60_000);
    await ageHeartbeat(fresh.id, 60_000);
    await sup.tick();
    expect((await getJob(t.pool, fresh.id)).state).toBe("queued");
    expect(await errorClassesOf(stale, fresh)).toEqual({ [stale.id]: ["WorkerLost"], [fresh.id]: ["LeaseExpired"] });
  });

  it("a worker that beats again while its crash is being recovered loses nothing it still holds, and no recovery names a job that did not die", async () => {
    const sup = createSupervisor({ db: t.pool, id: "sup-woke", staleAfterMs: 10_000 });
    const w = lone();
    const bystander = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 3 }), w);
    // Started last: the crash of `w` would be blamed on it.
    const blamed = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 3 }), w);
    await ageHeartbeat(bystander.id, 60_000);
    await ageHeartbeat(blamed.id, 60_000);
    // The worker comes back (it was only stopped) after the supervisor read both leases as stale and
    // before it wrote the one it blames: the test holds that row until the supervisor waits on it.
    let ticked: Promise<unknown> = Promise.resolve();
    await other.transaction(async (tx) => {
      await execute(tx, sql`SELECT id FROM jobs_live WHERE id = ${blamed.id} FOR UPDATE`);
      ticked = sup.tick();
      await waitForLockWaiters(t.pool, 1);
      await execute(tx, sql`UPDATE jobs_live SET heartbeat_at = now() WHERE lease_owner = ${w} AND state = 'running'`);
    });
    await ticked;
    const recoveries = await execute<{ jobId: string; payload: { crash?: { blamed?: { jobId: string } | null } } }>(
      t.pool,
      sql`SELECT job_id, payload FROM job_events WHERE job_id = ANY(${sql.param([bystander.id, blamed.id])}::uuid[]) AND actor_kind = 'supervisor'`,
    );
    // Had the bystander been handed back first, its recovery would blame a job that kept running.
    expect(recoveries).toEqual([]);
    for (const j of [bystander, blamed]) expect((await getJob(t.pool, j.id)).state).toBe("running");
  });

  it("a long job that was a bystander of a repeat offender is not blamed for the first kill of the next crasher", async () => {
    const sup = createSupervisor({ db: t.pool, id: "sup-next", staleAfterMs: 10_000, poisonCrashes: 3 });
    const first = await newJob(t.pool, { maxAttempts: 10 });
    const long = await newJob(t.pool, { maxAttempts: 3 });
    // The first crasher kills two workers; the long job is on the second one.
    await crash(sup, [first]);
    await crash(sup, [long, first]);
    // A new crasher's first kill: the long job has been on two dead workers, one of them explained by the first crasher.
    const next = await newJob(t.pool, { maxAttempts: 10 });
    await crash(sup, [long, next]);
    expect(await errorClassesOf(long, next)).toEqual({ [long.id]: ["WorkerLost", "WorkerLost"], [next.id]: ["LeaseExpired"] });
    expect(await getJob(t.pool, long.id)).toMatchObject({ state: "queued", maxAttempts: 5 });
  });

  it("a job that crashed fewer workers than the threshold is reclaimed as before", async () => {
    const job = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 10 }), lone());
    await ageHeartbeat(job.id, 60_000);
    const report = await createSupervisor({ db: t.pool, staleAfterMs: 10_000, poisonCrashes: 2 }).tick();
    expect(report.poisoned).toBe(0);
    expect((await getJob(t.pool, job.id)).state).toBe("queued");
  });

  it("never reclaims a job that keeps beating, however long it runs", async () => {
    const job = await runJob(t.pool, await newJob(t.pool));
    // A run that started five hours ago (the write path's mark: run_started_at is one of its columns).
    await withDirectWrites(t.pool, (tx) => execute(tx, sql`UPDATE jobs_live SET run_started_at = now() - interval '5 hours' WHERE id = ${job.id}`));
    await createSupervisor({ db: t.pool, staleAfterMs: 10_000 }).tick();
    expect((await getJob(t.pool, job.id)).state).toBe("running");
  });

  it("turns a stale cancelling job into cancelled, never back into queued", async () => {
    const job = await runJob(t.pool, await newJob(t.pool), lone());
    await transition(t.pool, { jobId: job.id, event: "cancel", actor: { kind: "tenant", id: "acme-user" } });
    await ageHeartbeat(job.id, 60_000);
    await createSupervisor({ db: t.pool, staleAfterMs: 10_000 }).tick();
    expect((await getJob(t.pool, job.id)).state).toBe("cancelled");
  });

  it("promotes due retries and leaves future ones waiting", async () => {
    const due = await runJob(t.pool, await newJob(t.pool));
    const future = await runJob(t.pool, await newJob(t.pool));
    const err = { class: "UpstreamTimeout", message: "timed out" };
    await transition(t.pool, { jobId: due.id, event: "fail", actor: worker(), attempt: 1, retryAt: new Date(Date.now() - 1000), error: err });
    await transition(t.pool, { jobId: future.id, event: "fail", actor: worker(), attempt: 1, retryAt: new Date(Date.now() + 3_600_000), error: err });
    await createSupervisor({ db: t.pool }).tick();
    expect((await getJob(t.pool, due.id)).state).toBe("queued");
    expect((await getJob(t.pool, future.id)).state).toBe("retry_wait");
  });

  it("two supervisors at once reclaim each job once; the duplicate attempts show up as rejections", async () => {
    const jobs = [];
    // Each on a worker of its own: a worker's jobs that go stale together are one crash, and all but one are rescued.
    for (let i = 0; i < 20; i++) jobs.push(await runJob(t.pool, await newJob(t.pool), lone()));
    for (const j of jobs) await ageHeartbeat(j.id, 60_000);
    const a = createSupervisor({ db: t.pool, id: "sup-a", staleAfterMs: 10_000 });
    const b = createSupervisor({ db: other, id: "sup-b", staleAfterMs: 10_000 });
    const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
    for (const j of jobs) {
      expect(await getJob(t.pool, j.id)).toMatchObject({ state: "queued", stateVersion: 3 });
      const [{ n } = { n: -1 }] = await execute<{ n: number }>(
        t.pool,
        sql`
        SELECT count(*)::int AS n FROM job_events WHERE job_id = ${j.id} AND event = 'reclaim'`,
      );
      expect(n).toBe(1);
      expect(await checkJobIntegrity(t.pool, j.id)).toEqual([]);
    }
    const duplicates = (await Promise.all(jobs.map((j) => rejectionsOf(t.pool, j.id)))).flat();
    expect(duplicates.every((r) => r.kind === "conflict" && r.event === "reclaim")).toBe(true);
    expect(ra.reclaimed + rb.reclaimed).toBe(jobs.length);
    expect(duplicates.length).toBe(ra.refused + rb.refused);
  });
});

describe("supervisor without a database", () => {
  it("backs off while the database is unreachable instead of ticking at its interval", async () => {
    const { freePort } = await import("../db/embedded");
    const nowhere = connect(`postgres://postgres:x@127.0.0.1:${await freePort()}/none`, { max: 1 });
    const failed: { line: string; at: number }[] = [];
    const log = (line: string) => void (line.startsWith("tick failed") && failed.push({ line, at: performance.now() }));
    const sup = createSupervisor({ db: nowhere, id: "sup-off", intervalMs: 20, log });
    sup.start();
    await waitFor("three failed ticks", () => failed.length >= 3);
    await sup.stop();
    await closeDb(nowhere, 1);
    expect(failed.slice(0, 3).map((f) => /\((\d+) in a row\)/.exec(f.line)?.[1])).toEqual(["1", "2", "3"]);
    // At its 20 ms interval the next tick would start 20 ms after a failure. DB_RETRY waits 250 ms
    // doubling, less up to half of it as jitter: at least 125 ms after the first failure, 250 ms
    // after the second (lower bounds: a loaded machine only makes the gaps longer).
    const gaps = [failed[1]!.at - failed[0]!.at, failed[2]!.at - failed[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(125 - 2);
    expect(gaps[1]).toBeGreaterThanOrEqual(250 - 2);
  });
});
