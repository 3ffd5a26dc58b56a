import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { enqueue } from "../jobs/enqueue";
import { changeQueue } from "../jobs/queues";
import { API, deferred, freshQueue, getJob, jobIn, OPERATOR, submit, waitFor, testWorkers } from "./test-support";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// Queues with real workers: pause and resume, a cap across worker processes, fairness.
const t = setupTestDb({ max: 20 });
const startWorker = testWorkers(t.pool);
let children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : (c.once("exit", r), c.kill("SIGTERM"))))));
  children = [];
});

const leasedIn = async (queue: string) =>
  (await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM jobs_live WHERE queue = ${queue} AND lease_owner IS NOT NULL`))[0]!.n;

describe("queues with real workers", () => {
  it("a paused queue gives its running worker nothing more; what runs finishes; resumed, the rest run", async () => {
    const queue = freshQueue();
    const gate = deferred();
    // Four slots for two running jobs: the worker keeps asking for more while they run.
    const worker = await startWorker(queue, { "report.generate": async () => gate.promise }, { concurrency: 4 });
    const running = [await submit(t.pool, queue), await submit(t.pool, queue)];
    for (const j of running) await jobIn(t.pool, j.id, "running");
    await changeQueue(t.pool, queue, { kind: "pause" }, OPERATOR);
    const waiting = [await submit(t.pool, queue), await submit(t.pool, queue), await submit(t.pool, queue)];
    // The worker is woken by each submit and polls every 100 ms: let it try to claim several times.
    const rounds = worker.stats().rounds;
    await waitFor("the worker to try again", () => worker.stats().rounds >= rounds + 3);
    gate.resolve();
    for (const j of running) expect((await jobIn(t.pool, j.id, "succeeded", "dead", "retry_wait")).state).toBe("succeeded");
    const rounds2 = worker.stats().rounds;
    await waitFor("the worker to go on trying", () => worker.stats().rounds >= rounds2 + 3);
    for (const j of waiting) expect(await getJob(t.pool, j.id)).toMatchObject({ state: "queued", stateVersion: 0, attempt: 0 });
    await changeQueue(t.pool, queue, { kind: "resume" }, OPERATOR);
    for (const j of waiting) expect((await jobIn(t.pool, j.id, "succeeded", "dead", "retry_wait")).state).toBe("succeeded");
  });

  // An unbatched worker claims lean until a claim says its queue is capped, then counts its slots.
  it("an unbatched worker whose queue is capped keeps within the limit, and uses it", async () => {
    const queue = freshQueue();
    const limit = 2;
    await changeQueue(t.pool, queue, { kind: "limit", limit }, OPERATOR);
    await startWorker(queue, { "report.generate": () => new Promise((r) => setTimeout(() => r(null), 30)) }, { concurrency: 6, batch: false });
    const jobs = [];
    for (let i = 0; i < 12; i++) jobs.push(await submit(t.pool, queue));
    let most = 0;
    await waitFor(
      "every job to succeed",
      async () => {
        most = Math.max(most, await leasedIn(queue));
        const [left] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM jobs_live WHERE queue = ${queue}`);
        return left!.n === 0;
      },
      30_000,
    );
    expect(most).toBeLessThanOrEqual(limit);
    expect(most).toBe(limit);
    for (const j of jobs) expect((await getJob(t.pool, j.id)).state).toBe("succeeded");
  });

  it("a concurrency limit holds across worker processes: leased jobs never exceed it, and it is used", async () => {
    const queue = freshQueue();
    const limit = 3;
    await changeQueue(t.pool, queue, { kind: "limit", limit }, OPERATOR);
    // Three processes of 4 slots each, as the runtime role: 12 slots for a cap of 3.
    const ready: Promise<unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      const c = spawn(process.execPath, ["--import", "tsx", "bench/worker-proc.ts", t.roleUrl("worker"), queue, "4", "40"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(c);
      ready.push(
        new Promise((res, rej) => (c.stdout?.once("data", res), c.once("exit", (code) => rej(new Error(`worker process exited (${code})`))))),
      );
    }
    await Promise.all(ready);
    const jobs = [];
    for (let i = 0; i < 45; i++)
      jobs.push(
        (await enqueue(t.pool, { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue }, API)).job,
      );
    let most = 0;
    const samples: number[] = [];
    await waitFor(
      "every job to succeed",
      async () => {
        const n = await leasedIn(queue);
        samples.push(n);
        most = Math.max(most, n);
        const [left] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM jobs_live WHERE queue = ${queue}`);
        return left!.n === 0;
      },
      60_000,
    );
    expect(most).toBeLessThanOrEqual(limit);
    expect(most).toBe(limit);
    expect(samples.length).toBeGreaterThan(10);
    const [done] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM jobs WHERE queue = ${queue} AND state = 'succeeded'`);
    expect(done!.n).toBe(45);
    const [row] = await execute<{ leased: number }>(t.pool, sql`SELECT leased FROM queues WHERE name = ${queue}`);
    expect(row!.leased).toBe(0);
  });

  it("a fair queue runs another tenant's jobs among the first, not after a tenant's burst", async () => {
    const order = async (fair: boolean) => {
      const queue = freshQueue();
      if (fair) await changeQueue(t.pool, queue, { kind: "fair", fair: true }, OPERATOR);
      for (let i = 0; i < 120; i++) await submit(t.pool, queue);
      const late = [];
      for (let i = 0; i < 3; i++)
        late.push(
          (await enqueue(t.pool, { tenantId: "globex", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue }, API))
            .job.id,
        );
      const starts: string[] = [];
      await startWorker(queue, { "report.generate": async (ctx) => void starts.push(ctx.job.tenantId) }, { concurrency: 2, prefetch: 0 });
      await waitFor("all 123 jobs to start", () => starts.length >= 123, 60_000);
      // 1-based positions of globex's jobs among the starts.
      return starts.flatMap((tenant, i) => (tenant === "globex" ? [i + 1] : []));
    };
    const fair = await order(true);
    const plain = await order(false);
    // Fair: tags interleave the tenants (acme 1, globex 1, acme 2, globex 2, …): globex is among the first six.
    expect(Math.max(...fair)).toBeLessThanOrEqual(6);
    // First come, first served: globex waits behind all 120 of acme's.
    expect(Math.min(...plain)).toBeGreaterThan(120);
  });
});
