import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim } from "../jobs/claim";
import { heartbeat } from "../jobs/heartbeat";
import { liveProgress } from "../jobs/queries";
import { transition } from "../jobs/transition";
import { getJobDetail } from "../jobs/queries";
import { redactForTenant } from "../jobs/redact";
import { errorStack, MAX_ERROR_STACK_BYTES } from "./errors";
import { deferred, freshQueue, jobIn, OPERATOR, submit, waitFor, testWorkers } from "./test-support";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ max: 20 });
const startWorker = testWorkers(t.pool);

class LedgerError extends Error {
  override name = "LedgerError";
}

/** A handler frame with a name to find in the stored stack. */
async function postToLedger(): Promise<never> {
  throw new LedgerError("the ledger refused the batch", { cause: new TypeError("socket hang up") });
}

describe("stack traces per attempt", () => {
  it("stores a failed attempt's stack with its causes, paths relative, for staff only", async () => {
    const queue = freshQueue();
    await startWorker(queue, { "report.generate": () => postToLedger() });
    const job = await submit(t.pool, queue, { maxAttempts: 1 });
    await jobIn(t.pool, job.id, "dead");

    const staff = await getJobDetail(t.pool, job.id, { stacks: true });
    const run = staff!.runs[0]!;
    expect(run).toMatchObject({ errorClass: "LedgerError", errorMessage: "the ledger refused the batch" });
    const stack = run.errorStack!;
    // The frames, not the first line again (class and message are stored beside it).
    expect(stack.split("\n")[0]).toMatch(/^\s+at postToLedger \(lib\/worker\/progress-and-stacks\.test\.ts:\d+:\d+\)$/);
    expect(stack).toContain("Caused by: TypeError: socket hang up");
    expect(stack).not.toContain(process.cwd());

    // Not read unless asked for (the tenant API's reads), and never in a tenant's copy.
    expect((await getJobDetail(t.pool, job.id))!.runs[0]).not.toHaveProperty("errorStack");
    expect(redactForTenant(staff!).runs[0]).not.toHaveProperty("errorStack");
    // Nor in the event log's payloads.
    const payloads = await execute<{ payload: unknown }>(t.pool, sql`SELECT payload FROM job_events WHERE job_id = ${job.id}`);
    expect(JSON.stringify(payloads)).not.toContain("postToLedger");
  });

  it("caps the stack like the message, and has none for a thrown non-error", () => {
    const deep = new Error("deep");
    deep.stack = `Error: deep\n${"    at frame (x.ts:1:1)\n".repeat(5_000)}`;
    const stack = errorStack(deep)!;
    expect(new TextEncoder().encode(stack).length).toBeLessThanOrEqual(MAX_ERROR_STACK_BYTES);
    expect(stack).toMatch(/… \[truncated\]$/);
    expect(errorStack("a string")).toBeUndefined();
    // A stack getter that throws is no reason to lose the attempt's report.
    const hostile = new Error("x");
    Object.defineProperty(hostile, "stack", {
      get: () => {
        throw new Error("no");
      },
    });
    expect(errorStack(hostile)).toBeUndefined();
  });
});

describe("ctx.progress", () => {
  it("reaches the live row with the next heartbeat, belongs to its attempt only, and refuses nonsense", async () => {
    const queue = freshQueue();
    const gates = [deferred(), deferred()];
    const reported = [deferred(), deferred()];
    const refusals: string[] = [];
    await startWorker(queue, {
      "report.generate": async (ctx) => {
        const n = ctx.attempt - 1;
        if (n === 0) {
          // Many calls in a row: only the last one matters, and none of them writes.
          for (let i = 0; i <= 30; i++) ctx.progress(i, 100);
          const { progress } = ctx;
          progress(3_000, 10_000);
          for (const bad of [
            [NaN, 10],
            [-1, 10],
            [11, 10],
            [1, 0],
            [1, Infinity],
          ] as const) {
            try {
              ctx.progress(bad[0], bad[1]);
            } catch (e) {
              refusals.push(e instanceof RangeError ? "RangeError" : String(e));
            }
          }
        }
        reported[n]!.resolve();
        await gates[n]!.promise;
        if (n === 0) throw new Error("first attempt fails");
        return { ok: true };
      },
    });
    const job = await submit(t.pool, queue, { maxAttempts: 2 });
    await reported[0]!.promise;
    expect(refusals).toEqual(["RangeError", "RangeError", "RangeError", "RangeError", "RangeError"]);
    const first = await waitFor("the first attempt's progress", async () => (await getJobDetail(t.pool, job.id))!.progress);
    expect(first).toEqual({ attempt: 1, done: 3_000, total: 10_000 });
    expect(await liveProgress(t.pool, [{ id: job.id, state: "running" }])).toEqual(new Map([[job.id, { done: 3_000, total: 10_000 }]]));

    // The second attempt has reported nothing: the first one's value is not shown as its own.
    gates[0]!.resolve();
    await jobIn(t.pool, job.id, "retry_wait");
    expect((await transition(t.pool, { jobId: job.id, event: "retry", actor: OPERATOR })).ok).toBe(true);
    await reported[1]!.promise;
    await jobIn(t.pool, job.id, "running");
    expect((await getJobDetail(t.pool, job.id))!.job.attempt).toBe(2);
    expect((await getJobDetail(t.pool, job.id))!.progress).toBeNull();
    expect((await liveProgress(t.pool, [{ id: job.id, state: "running" }])).size).toBe(0);
    gates[1]!.resolve();
    await jobIn(t.pool, job.id, "succeeded");
    expect((await getJobDetail(t.pool, job.id))!.progress).toBeNull();
  });
});

describe("the heartbeat's progress", () => {
  it("writes the progress it carries and leaves the rest of the batch's as they were", async () => {
    const queue = freshQueue();
    const a = await submit(t.pool, queue);
    const b = await submit(t.pool, queue);
    const claimed = await claim(t.pool, { workerId: "w-beat", queues: [queue], limit: 2, startNow: 2 });
    expect(claimed).toHaveLength(2);
    const beat = (progress: Record<string, { done: number; total: number }>) =>
      heartbeat(t.pool, {
        workerId: "w-beat",
        jobs: claimed.map((j) => ({ id: j.id, attempt: j.attempt, ...(progress[j.id] && { progress: progress[j.id] }) })),
      });
    await beat({ [a.id]: { done: 1, total: 4 }, [b.id]: { done: 0.5, total: 2 } });
    // Only b reports: a keeps its value (null in the arrays), b's changes.
    const seen = await beat({ [b.id]: { done: 2, total: 2 } });
    expect(seen.size).toBe(2);
    const progress = await liveProgress(
      t.pool,
      claimed.map((j) => ({ id: j.id, state: "running" as const })),
    );
    expect(progress).toEqual(
      new Map([
        [a.id, { done: 1, total: 4 }],
        [b.id, { done: 2, total: 2 }],
      ]),
    );
    // Another worker's beat (no lease) writes nothing.
    await heartbeat(t.pool, { workerId: "w-other", jobs: [{ id: a.id, attempt: 1, progress: { done: 4, total: 4 } }] });
    expect((await liveProgress(t.pool, [{ id: a.id, state: "running" }])).get(a.id)).toEqual({ done: 1, total: 4 });
  });
});
