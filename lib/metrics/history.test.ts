import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { History } from "../demo/history";
import { MIN_SAMPLE, quantileMs } from "./history";
import { typeHistory, typeSummaries } from "./type-history";
import { catchUpMetrics, rollUpMetrics } from "./rollup";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ max: 6 });
const HOUR = 3_600_000;
const TYPE = "report.generate";

/** One attempt of a job of TYPE, claimed at `at`, that runs `runMs` and then succeeds or fails. */
async function attempt(at: number, runMs: number, ok: boolean) {
  const h = new History(t.pool, at);
  await h.submit({ tenantId: "acme", type: TYPE, params: { report: "daily_usage", period: "2026-11" }, queue: "hist" }, { kind: "api", id: "k" });
  await h.run("w-hist", 100, 100);
  if (ok) await h.step("finish", runMs);
  else await h.step("fail", runMs, undefined, { error: { class: "Boom", message: "no" }, retryAt: new Date(h.at + runMs + HOUR) });
}

describe("the per-type history (metric_history)", () => {
  it("is rolled up per hour, and draws a rate or a percentile only on a sample of MIN_SAMPLE attempts", async () => {
    const now = Date.now();
    const hour = Math.floor(now / HOUR) * HOUR;
    // Two hours ago: 12 attempts of about 2 s, 3 of them failed. An hour ago: one attempt, failed.
    for (let i = 0; i < 12; i++) await attempt(hour - 2 * HOUR + 10 * 60_000 + i * 1000, 2_000, i < 9);
    await attempt(hour - HOUR + 5 * 60_000, 2_000, false);

    // A database whose roll-up has not started catches up from `since` (the demo's seed does this).
    expect(await catchUpMetrics(t.pool, new Date(hour - 3 * HOUR))).toBeGreaterThanOrEqual(3);
    // Each pass stayed within its hour: the history's buckets are whole hours, and nothing was counted twice.
    const buckets = await execute<{ bucket: Date; n: number }>(
      t.pool,
      sql`
      SELECT bucket, sum(value)::float8 AS n FROM metric_history WHERE type = ${TYPE} AND metric = 'attempts_ended' GROUP BY bucket ORDER BY bucket`,
    );
    expect(buckets.map((b) => [b.bucket.getTime() - hour, b.n])).toEqual([
      [-2 * HOUR, 12],
      [-HOUR, 1],
    ]);
    const [total] = await execute<{ n: number }>(
      t.pool,
      sql`SELECT sum(value)::float8 AS n FROM metric_totals WHERE type = ${TYPE} AND metric = 'attempts_ended'`,
    );
    expect(total!.n).toBe(13);
    // Once caught up, a second catch-up does nothing: the supervisor's passes go on from there.
    expect(await catchUpMetrics(t.pool, new Date(hour - 3 * HOUR))).toBe(0);

    const points = await typeHistory(t.pool, TYPE, "24h", new Date(now));
    expect(points).toHaveLength(24);
    const at = (offset: number) => points.find((p) => Date.parse(p.t) === hour + offset)!;
    expect(at(-2 * HOUR)).toMatchObject({ succeeded: 9, failed: 3, failureRate: 0.25 });
    // 2 s runs fall in the (1 s, 2.5 s] bucket: interpolated inside it.
    expect(at(-2 * HOUR).runP50Ms).toBeGreaterThan(1_000);
    expect(at(-2 * HOUR).runP95Ms).toBeLessThanOrEqual(2_500);
    // One failed attempt of one: counted, but no 100% spike and no percentile.
    expect(at(-HOUR)).toMatchObject({ failed: 1, failureRate: null, runP50Ms: null, runP95Ms: null });
    expect(at(0)).toMatchObject({ succeeded: 0, failed: 0, failureRate: null });

    const [summary] = await typeSummaries(t.pool, "24h", new Date(now));
    expect(summary).toMatchObject({ type: TYPE, attempts: 13 });
    expect(summary!.failureRate).toBeCloseTo(4 / 13);

    // A later pass adds what is new (after the cursor) to the hour it happened in.
    await attempt(Date.now() - 1_000, 500, true);
    // A pass stops at the end of its hour: when the hour turned since the catch-up, this takes two.
    const written = Date.now();
    for (let pass = await rollUpMetrics(t.pool, { settleMs: 0 }); pass.to!.getTime() < written;) pass = await rollUpMetrics(t.pool, { settleMs: 0 });
    const succeeded = (ps: typeof points) => ps.reduce((n, p) => n + p.succeeded, 0);
    expect(succeeded(await typeHistory(t.pool, TYPE, "24h"))).toBe(succeeded(points) + 1);
  });

  it("interpolates a percentile within its bucket, and stops at the last finite bound", () => {
    expect(quantileMs(new Map([["1", 10]]), 0.5)).toBe(750);
    expect(
      quantileMs(
        new Map([
          ["0.5", 5],
          ["1", 5],
        ]),
        0.95,
      ),
    ).toBe(950);
    expect(quantileMs(new Map([["+Inf", 3]]), 0.5)).toBe(3_600_000);
    expect(quantileMs(new Map(), 0.5)).toBeNull();
    expect(MIN_SAMPLE).toBe(10);
  });
});
