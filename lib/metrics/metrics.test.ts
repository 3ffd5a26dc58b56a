import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { waitForNextMillisecond } from "../db/test-wait";
import { getJob, newJob, operator, runAndEnd, runJob, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { createSupervisor } from "../supervisor/supervisor";
import { metricsResponse } from "./http";
import { rollUpMetrics } from "./rollup";
import { collectMetrics, METRIC_QUEUE_LIMIT } from "./scrape";
import { parseExposition, valueOf } from "./text-format";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ max: 6 });

const TYPE = "report.generate";
const submit = (queue: string, maxAttempts = 3) => newJob(t.pool, { type: TYPE, queue, maxAttempts });
const scrape = async () => parseExposition((await collectMetrics(t.pool)).text);
/** The roll-up's window ends at its now() to the millisecond: let the clock pass what was just written. */
const settle = () => waitForNextMillisecond(t.pool);

describe("GET /metrics", () => {
  it("counts what ended, went dead, was cancelled, reclaimed or refused, from the history, once", async () => {
    // The first pass places the cursor only: nothing before it is counted.
    await submit("m-before");
    expect(await rollUpMetrics(t.pool, { settleMs: 0 })).toMatchObject({ ran: true, from: null });
    await settle();

    // A queue a live worker serves is one the metrics know by name (others count under "other").
    const q = "m-main";
    await execute(t.pool, sql`INSERT INTO workers (id, host, pid, queues, concurrency) VALUES ('w-m-main', 'h', 1, ${sql.param([q])}, 4)`);
    await runAndEnd(t.pool, await submit(q), "finish", { result: { ok: true } });
    await runAndEnd(t.pool, await submit(q), "fail", { error: { class: "Boom", message: "x" }, retryAt: new Date(Date.now() + 3_600_000) });
    await runAndEnd(t.pool, await submit(q), "abandon", { error: { class: "Permanent", message: "no" } });
    const cancelled = await submit(q);
    expect((await transition(t.pool, { jobId: cancelled.id, event: "cancel", actor: operator })).ok).toBe(true);
    const stale = await runJob(t.pool, await submit(q), "w-gone");
    await execute(t.pool, sql`UPDATE jobs_live SET heartbeat_at = now() - interval '1 minute' WHERE id = ${stale.id}`);
    await createSupervisor({ db: t.pool, staleAfterMs: 10_000 }).tick();
    expect((await getJob(t.pool, stale.id)).state).toBe("queued");
    // Its crash backoff (the stale threshold) passes: it is due, and has waited since.
    await execute(t.pool, sql`UPDATE jobs_live SET not_before = now() - interval '1 minute' WHERE id = ${stale.id}`);
    // A refused move: finishing a job that is not running any more.
    expect((await transition(t.pool, { jobId: cancelled.id, event: "cancel", actor: operator, expected: { state: "queued", version: 0 } })).ok).toBe(
      false,
    );
    await settle();

    // Two supervisors at once: one of them rolls the window up, the other skips it.
    const passes = await Promise.all([rollUpMetrics(t.pool, { settleMs: 0 }), rollUpMetrics(t.pool, { settleMs: 0 })]);
    expect(passes.filter((p) => p.ran && p.series > 0).length).toBeLessThanOrEqual(1);
    await rollUpMetrics(t.pool, { settleMs: 0 });

    const m = await scrape();
    const l = { queue: q, type: TYPE };
    expect(valueOf(m, "jobscope_jobs_enqueued_total", l)).toBe(5);
    expect(valueOf(m, "jobscope_jobs_enqueued_total", { queue: "m-before" })).toBe(0);
    expect(valueOf(m, "jobscope_attempts_started_total", l)).toBe(4);
    expect(valueOf(m, "jobscope_jobs_finished_total", l)).toBe(1);
    // The failed attempt and the abandoned one (a permanent error): both attempts failed.
    expect(valueOf(m, "jobscope_attempts_failed_total", l)).toBe(2);
    expect(valueOf(m, "jobscope_attempts_ended_total", { ...l, outcome: "lease_expired" })).toBe(1);
    expect(valueOf(m, "jobscope_jobs_dead_total", l)).toBe(1);
    expect(valueOf(m, "jobscope_jobs_cancelled_total", l)).toBe(1);
    expect(valueOf(m, "jobscope_supervisor_actions_total", { ...l, action: "reclaim" })).toBe(1);
    expect(valueOf(m, "jobscope_rejections_total", { kind: "conflict" })).toBe(1);
    expect(valueOf(m, "jobscope_run_seconds", l, "jobscope_run_seconds_count")).toBe(4);
    expect(valueOf(m, "jobscope_run_seconds", { ...l, le: "+Inf" }, "jobscope_run_seconds_bucket")).toBe(4);
    expect(valueOf(m, "jobscope_queue_wait_seconds", l, "jobscope_queue_wait_seconds_count")).toBe(4);
    expect(valueOf(m, "jobscope_queue_wait_seconds", { ...l, le: "3600" }, "jobscope_queue_wait_seconds_bucket")).toBe(4);

    // Live gauges: the reclaimed job and the failed one (retry_wait, due in an hour) are waiting.
    expect(valueOf(m, "jobscope_jobs", { queue: q, state: "queued" })).toBe(1);
    expect(valueOf(m, "jobscope_jobs", { queue: q, state: "retry_wait" })).toBe(1);
    expect(valueOf(m, "jobscope_jobs_count_capped", { queue: q, state: "queued" })).toBe(0);
    expect(valueOf(m, "jobscope_queue_oldest_due_age_seconds", { queue: q })).toBeGreaterThan(0);
    expect(m.get("jobscope_workers")?.type).toBe("gauge");
    expect(valueOf(m, "jobscope_metrics_rollup_lag_seconds")).toBeGreaterThanOrEqual(0);

    // A later pass adds only what is new.
    const again = await runJob(t.pool, await getJob(t.pool, stale.id), "w-2");
    expect((await transition(t.pool, { jobId: again.id, event: "finish", actor: worker("w-2"), attempt: 2 })).ok).toBe(true);
    await settle();
    await rollUpMetrics(t.pool, { settleMs: 0 });
    const m2 = await scrape();
    expect(valueOf(m2, "jobscope_jobs_finished_total", l)).toBe(2);
    expect(valueOf(m2, "jobscope_jobs_enqueued_total", l)).toBe(5);
    // The second attempt waited from its reclaim (a job_log row) to its claim.
    expect(valueOf(m2, "jobscope_queue_wait_seconds", l, "jobscope_queue_wait_seconds_count")).toBe(5);
  });

  it("is off without a token, refuses a missing or wrong one, and serves the text format with the right one", async () => {
    const req = (auth?: string) => new Request("http://x/metrics", { headers: auth ? { authorization: auth } : {} });
    const deps = (token: string | undefined) => ({ token, db: () => t.pool });
    expect((await metricsResponse(req("Bearer s3cret"), deps(undefined))).status).toBe(404);
    expect((await metricsResponse(req("Bearer s3cret"), deps(""))).status).toBe(404);
    expect((await metricsResponse(req(), deps("s3cret"))).status).toBe(401);
    expect((await metricsResponse(req("Bearer wrong"), deps("s3cret"))).status).toBe(401);
    expect((await metricsResponse(req("Basic s3cret"), deps("s3cret"))).status).toBe(401);
    const ok = await metricsResponse(req("Bearer s3cret"), deps("s3cret"));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parseExposition(await ok.text());
    for (const name of [
      "jobscope_jobs",
      "jobscope_jobs_enqueued_total",
      "jobscope_attempts_started_total",
      "jobscope_jobs_finished_total",
      "jobscope_attempts_failed_total",
      "jobscope_jobs_dead_total",
      "jobscope_jobs_cancelled_total",
      "jobscope_queue_wait_seconds",
      "jobscope_run_seconds",
      "jobscope_queue_oldest_due_age_seconds",
      "jobscope_workers",
      "jobscope_supervisor_actions_total",
      "jobscope_rejections_total",
      "jobscope_integrity_mismatches_total",
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    // Every series the Grafana dashboard queries is one the scrape has (the worker's own: worker-metrics.test.ts).
    const dashboard = readFileSync("docs/grafana-dashboard.json", "utf8");
    const used = new Set([...dashboard.matchAll(/\b(jobscope_[a-z_]+)/g)].map((m) => m[1]!).filter((n) => !n.startsWith("jobscope_worker_")));
    const exposed = new Set(
      [...families.values()].flatMap((f) => (f.type === "histogram" ? [`${f.name}_bucket`, `${f.name}_sum`, `${f.name}_count`] : [f.name])),
    );
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((n) => !exposed.has(n))).toEqual([]);
  });

  it('labels have bounded cardinality: 300 queues nobody declared, serves or set are one queue, "other"', async () => {
    await rollUpMetrics(t.pool, { settleMs: 0 });
    await settle();
    const before = await collectMetrics(t.pool);
    for (let i = 0; i < 300; i++) await submit(`0${String(i).padStart(4, "0")}-invented`);
    await submit("default");
    await settle();
    await rollUpMetrics(t.pool, { settleMs: 0 });
    const text = (await collectMetrics(t.pool)).text;
    const m = parseExposition(text);
    const queues = new Set([...text.matchAll(/queue="([^"]*)"/g)].map((x) => x[1]));
    expect([...queues].filter((x) => x!.includes("invented"))).toEqual([]);
    expect(queues.has("other")).toBe(true);
    expect(queues.has("default")).toBe(true);
    expect(queues.size).toBeLessThanOrEqual(METRIC_QUEUE_LIMIT + 1);
    // Live counts probe the first 200 unknown queues: a lower bound past them, and said to be one.
    expect(valueOf(m, "jobscope_jobs", { queue: "other", state: "queued" })).toBeGreaterThanOrEqual(200);
    expect(valueOf(m, "jobscope_jobs_count_capped", { queue: "other", state: "queued" })).toBe(1);
    expect(valueOf(m, "jobscope_jobs_enqueued_total", { queue: "other", type: TYPE })).toBeGreaterThanOrEqual(300);
    // 300 more queues added a handful of series (the "other" ones), not thousands.
    const series = (x: string) => x.split("\n").filter((l) => l && !l.startsWith("#")).length;
    expect(series(text) - series(before.text)).toBeLessThan(60);
  });

  it("the text-format check refuses what Prometheus would", () => {
    expect(() => parseExposition("# HELP a x\n# TYPE a counter\na -1\n")).toThrow(/negative counter/);
    expect(() => parseExposition("# HELP a x\n# TYPE a gauge\nb 1\n")).toThrow(/outside its family/);
    expect(() => parseExposition('# HELP h x\n# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n')).toThrow(
      /cumulative/,
    );
    expect(() => parseExposition('# HELP h x\n# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n')).toThrow(/_count/);
    expect(() => parseExposition("# HELP a x\n# TYPE a gauge\na{x=1} 1\n")).toThrow(/bad labels/);
  });
});
