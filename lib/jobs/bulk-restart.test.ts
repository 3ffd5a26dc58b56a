import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { waitFor } from "../db/test-wait";
import { createSupervisor } from "../supervisor/supervisor";
import { silentLogger } from "../worker/log";
import { createWorker } from "../worker/worker";
import { getBulkProgress, previewBulk, startBulk, type BulkAudit } from "./bulk";
import { enqueue } from "./enqueue";
import { api, getJob, operator, runJob } from "./test-helpers";
import { transition } from "./transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// A bulk operation survives the death of the process running it. The web
// process only records the operation and submits its `jobscope.bulk` job (one transaction); a
// worker process applies it. Here that worker is SIGKILLed mid-operation, and another resumes.
const t = setupTestDb();
const workerSql = t.connect({ role: "worker", max: 6, appName: "jobscope-worker" });
const webSql = t.connect({ role: "app", max: 2, appName: "jobscope-console" });
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** The sessions of the worker process (its connections' application_name), or those of them waiting on a lock. */
/** The worker's sessions; with `blockedBy`, only those waiting on that session's locks (not, say, a relation extension under load). */
async function workerSessions(blockedBy: number | null = null) {
  const [r] = await execute<{ n: number }>(
    t.pool,
    sql`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = 'jobscope-worker'
       AND (${blockedBy}::int IS NULL OR ${blockedBy}::int = ANY(pg_blocking_pids(pid)))`,
  );
  return r?.n ?? 0;
}

const AUDIT: BulkAudit = {
  userId: null,
  actor: "ops@example.test",
  role: "operator",
  tenantId: null,
  action: "bulk.cancel",
  description: "restart test",
};

describe("a bulk operation on the engine", () => {
  it("survives SIGKILL of the worker running it: another resumes, every item applied or refused exactly once", async () => {
    const queue = `restart-${Date.now()}`;
    const N = 300;
    const jobs = [];
    for (let i = 0; i < N; i++) {
      jobs.push(
        (
          await enqueue(
            t.pool,
            { tenantId: i % 2 ? "acme" : "globex", queue, type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
            api,
          )
        ).job,
      );
    }
    const preview = await previewBulk(t.pool, { selection: { ids: jobs.map((j) => j.id) }, event: "cancel", actor: operator });
    expect(preview.willApply).toBe(N);
    // Behind the dry run's back: three cancelled by someone else, two taken by a worker.
    const someoneElse = { kind: "operator" as const, id: "someone-else" };
    const byId = [...preview.frozen].sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const j of byId.slice(0, 3)) await transition(t.pool, { jobId: j.id, event: "cancel", actor: someoneElse });
    for (const j of byId.slice(3, 5)) await runJob(t.pool, await getJob(t.pool, j.id));

    // Hold one job's row in the middle of the selection, so the run stops there and is killed mid-operation.
    const held = byId[Math.floor(N / 2)]!;
    // A pool of one connection: BEGIN, the lock and ROLLBACK run in one session.
    const lock = t.connect({ max: 1 });
    await execute(lock, sql`BEGIN`);
    await execute(lock, sql`SELECT 1 FROM jobs_live WHERE id = ${held.id} FOR UPDATE`);
    const lockPid = (await execute<{ pid: number }>(lock, sql`SELECT pg_backend_pid() AS pid`))[0]!.pid;

    // As the web process does it, with the console's role.
    const { operationId, jobId } = await startBulk(webSql, {
      frozen: preview.frozen,
      event: "cancel",
      actor: operator,
      description: "restart test",
      audit: AUDIT,
    });
    const a = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts", "--id", "bulk-a", "--queues", "jobscope", "--concurrency", "2"], {
      env: { ...process.env, DATABASE_URL: t.roleUrl("worker") },
      stdio: ["ignore", "ignore", "inherit"],
    });
    children.push(a);
    const aExited = new Promise((r) => a.once("exit", r));
    await waitFor("the worker to block on the held row", async () => (await workerSessions(lockPid)) > 0, 60_000);
    // The process dies (and, as the kernel would, its connections close); then the row is free again.
    a.kill("SIGKILL");
    await aExited;
    await execute(
      t.pool,
      sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'jobscope-worker'`,
    );
    // pg_terminate_backend only signals: the killed worker's transactions are over once its sessions are gone.
    await waitFor("the killed worker's sessions to end", async () => (await workerSessions()) === 0);
    const mid = (await getBulkProgress(t.pool, operationId))!;
    expect(mid.status).toBe("running");
    expect(mid.done).toBeGreaterThanOrEqual(N / 2 - 4);
    expect(mid.done).toBeLessThan(N);
    await execute(lock, sql`ROLLBACK`);
    const afterKill = (await getBulkProgress(t.pool, operationId))!;
    expect(afterKill).toMatchObject({ status: "running", done: mid.done });
    expect((await getJob(t.pool, held.id)).state).toBe("queued");

    // The supervisor finds the dead lease once it is 500 ms stale; a fresh worker (the restart)
    // claims the next attempt and finishes. (The supervisor reclaims the two jobs taken behind the
    // dry run's back too: their fake worker never heart-beats.)
    const supervisor = createSupervisor({ db: t.pool, staleAfterMs: 500 });
    await waitFor("the supervisor to reclaim the dead lease", async () => {
      await supervisor.tick();
      return (await getJob(t.pool, jobId!)).state === "queued";
    });
    const b = createWorker({
      db: workerSql,
      id: "bulk-b",
      queues: ["jobscope"],
      concurrency: 2,
      handlers: {},
      log: silentLogger,
      pollIntervalMs: 100,
    });
    void b.start();
    try {
      await waitFor("the operation to finish", async () => (await getBulkProgress(t.pool, operationId))?.status !== "running", 30_000);
    } finally {
      await b.stop();
    }

    const p = (await getBulkProgress(t.pool, operationId))!;
    expect(p).toMatchObject({ status: "done", total: N, done: N, applied: N - 5 });
    expect(p.refused).toEqual([expect.objectContaining({ kind: "conflict", count: 5 })]);
    expect(await getJob(t.pool, jobId!)).toMatchObject({ state: "succeeded", attempt: 2 });
    const [runs] = await execute<{ outcomes: string[] }>(
      t.pool,
      sql`SELECT array_agg(outcome::text ORDER BY attempt) AS outcomes FROM job_runs WHERE job_id = ${jobId!}`,
    );
    expect(runs?.outcomes).toEqual(["lease_expired", "succeeded"]);

    // Exactly once, per item: an applied item is one cancel by the operator, a refused one none.
    // The audit log holds one entry for the operation, naming every item's job; the items'
    // outcomes are reached from it (the operation's list), not written once more per item.
    const rows = await execute<{ jobId: string; outcome: string; cancels: number; audits: number }>(
      t.pool,
      sql`
      SELECT i.job_id, i.outcome,
             (SELECT count(*)::int FROM job_events e WHERE e.job_id = i.job_id AND e.event = 'cancel' AND e.actor_id = ${operator.id}) AS cancels,
             (SELECT count(*)::int FROM audit_log a WHERE a.action = 'bulk.cancel' AND i.job_id = ANY(a.job_ids)) AS audits
        FROM bulk_operation_items i WHERE i.operation_id = ${operationId}`,
    );
    expect(rows).toHaveLength(N);
    for (const r of rows) {
      expect(r.outcome, r.jobId).not.toBeNull();
      expect(r.cancels, r.jobId).toBe(r.outcome === "applied" ? 1 : 0);
      expect(r.audits, r.jobId).toBe(1);
    }
    const entries = await execute<{ outcome: string; operationId: string; n: number }>(
      t.pool,
      sql`
      SELECT outcome, operation_id, cardinality(job_ids) AS n FROM audit_log WHERE action = 'bulk.cancel'`,
    );
    expect(entries).toEqual([{ outcome: "applied", operationId, n: N }]);
    const [cancelled] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM jobs WHERE queue = ${queue} AND state = 'cancelled'`);
    expect(cancelled?.n).toBe(N - 2);
  }, 120_000);
});
