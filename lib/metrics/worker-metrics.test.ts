import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { freshQueue, jobIn, submit, testWorkers, waitFor } from "../worker/test-support";
import { parseExposition, valueOf } from "./text-format";

const t = setupTestDb({ max: 8 });
const startWorker = testWorkers(t.pool);

describe("a worker's own metrics (metricsPort)", () => {
  it("serves what it claimed and reported, in the text format, with no database work", async () => {
    const queue = freshQueue();
    const worker = await startWorker(queue, { "report.generate": async () => ({ ok: true }) }, { metricsPort: 0, id: "w-metrics" });
    const port = worker.metricsPort();
    expect(port).toBeGreaterThan(0);
    const jobs = [await submit(t.pool, queue), await submit(t.pool, queue), await submit(t.pool, queue)];
    for (const j of jobs) await jobIn(t.pool, j.id, "succeeded");
    const m = await waitFor("three reports in the metrics", async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const f = parseExposition(text);
      return valueOf(f, "jobscope_worker_attempts_total", { type: "report.generate", status: "reported", event: "finish" }) === 3 ? f : null;
    });
    expect(valueOf(m, "jobscope_worker_jobs_claimed_total", { worker: "w-metrics" })).toBe(3);
    expect(valueOf(m, "jobscope_worker_attempt_seconds", { type: "report.generate", event: "finish" }, "jobscope_worker_attempt_seconds_count")).toBe(
      3,
    );
    expect(m.has("jobscope_worker_process_cpu_seconds_total")).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });
});
