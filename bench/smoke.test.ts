// CI smoke profile of the benchmark: the same code as `npm run bench`, small, on
// its own embedded PostgreSQL. It asserts ratios with generous margins, never
// absolute times (shared CI machines drift). See docs/benchmarks.md.
import { describe, expect, it } from "vitest";
import { runBench } from "./run";

describe("benchmark smoke profile", () => {
  it("batched Jobscope keeps its ratios to graphile-worker and to its own one-at-a-time path", async () => {
    const r = await runBench("smoke");
    const [batched, graphile, single] = r.throughput;
    expect(batched?.kept).toMatch(/run records/);
    // Regression guards, far below the measured ratios (see docs/benchmarks.md for why the
    // issue's 0.5× of graphile-worker is not met: we write 7 rows and ~4.5 kB of WAL per job, it writes 2).
    expect(r.ratios["batched: Jobscope / graphile-worker"]).toBeGreaterThan(0.03);
    expect(batched!.jobsPerSec / single!.jobsPerSec).toBeGreaterThan(1.5);
    expect(graphile?.rowsPerJob).toBeLessThan(batched!.rowsPerJob);
    // Claim and start in one UPDATE: the job row twice, one run record twice, three events (+ heartbeats).
    expect(batched!.rowsPerJob).toBeLessThan(8);
  }, 180_000);
});
