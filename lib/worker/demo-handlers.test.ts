import { afterEach, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { createDemoHandlers } from "./demo-handlers";
import { silentLogger } from "./log";
import { freshQueue, jobIn, runsOf, submit } from "./test-support";
import type { Worker } from "./types";
import { createWorker } from "./worker";

const t = setupTestDb();
let worker: Worker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

/** Start a worker on a queue of its own with the demo handlers, driven by a fixed "random" draw. */
async function demoWorker(random: number) {
  const queue = freshQueue();
  worker = createWorker({
    db: t.pool,
    queues: [queue],
    concurrency: 8,
    handlers: createDemoHandlers(() => random),
    heartbeatIntervalMs: 200,
    pollIntervalMs: 200,
    log: silentLogger,
  });
  await worker.start();
  return queue;
}

describe("the demo handlers", () => {
  it("run every job type to the outcome its params call for", async () => {
    // 0.99: no out-of-memory, no timeout unless timeoutRate is 1, the slowest pages.
    const queue = await demoWorker(0.99);
    const exp = await submit(t.pool, queue, {
      type: "export.tenant_data",
      params: { dataset: "orders", rows: 3_000, chunkRows: 1_000, format: "jsonl" },
    });
    const render = await submit(t.pool, queue, { type: "media.render", params: { assetId: "a1", frames: 200, resolution: "720p" } });
    const report = await submit(t.pool, queue, { type: "report.generate", params: { report: "billing_summary", period: "2026-11" } });
    const ok = await submit(t.pool, queue, { type: "upstream.call", params: { endpoint: "https://partner.example/v1", timeoutRate: 0 } });
    const slow = await submit(t.pool, queue, {
      type: "upstream.call",
      params: { endpoint: "https://partner.example/v1", timeoutRate: 1 },
      maxAttempts: 1,
    });
    const gone = await submit(t.pool, queue, {
      type: "upstream.call",
      params: { endpoint: "https://partner.example/v1?status=404" },
      maxAttempts: 4,
    });
    const poison = await submit(t.pool, queue, { type: "poison.crash", params: {}, maxAttempts: 1 });

    const end = (id: string) => jobIn(t.pool, id, "succeeded", "dead", "retry_wait");
    const lastRun = async (id: string) => (await runsOf(t.pool, id)).at(-1);
    expect((await end(exp.id)).state).toBe("succeeded");
    expect((await lastRun(exp.id))?.result).toEqual({
      rows: 3_000,
      files: 3,
      bytes: 3_000 * 210,
      url: `https://exports.jobscope.example/acme/orders-${exp.id}.jsonl.zip`,
    });
    expect((await end(render.id)).state).toBe("succeeded");
    expect((await end(report.id)).state).toBe("succeeded");
    expect((await lastRun(report.id))?.result).toMatchObject({ report: "billing_summary", period: "2026-11" });
    expect((await end(ok.id)).state).toBe("succeeded");
    expect(await end(slow.id)).toMatchObject({ state: "dead" });
    expect(await lastRun(slow.id)).toMatchObject({ errorClass: "UpstreamTimeoutError" });
    // A 4xx is permanent: dead on the first of four attempts.
    expect(await end(gone.id)).toMatchObject({ state: "dead", attempt: 1 });
    expect(await lastRun(gone.id)).toMatchObject({ errorClass: "PermanentError" });
    // Without allowProcessKill the poison job fails instead of killing the test runner.
    expect(await end(poison.id)).toMatchObject({ state: "dead" });
    expect((await lastRun(poison.id))?.errorMessage).toMatch(/allowProcessKill/);
  });

  it("media.render runs out of memory on an unlucky draw", async () => {
    const queue = await demoWorker(0);
    const render = await submit(t.pool, queue, { type: "media.render", params: { assetId: "a2", frames: 1_000, resolution: "4k" }, maxAttempts: 2 });
    expect(await jobIn(t.pool, render.id, "retry_wait", "succeeded", "dead")).toMatchObject({ state: "retry_wait" });
    expect((await runsOf(t.pool, render.id)).at(-1)).toMatchObject({ outcome: "failed", errorClass: "OutOfMemoryError" });
  });
});
