import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { enqueue } from "../jobs/enqueue";
import { api } from "../jobs/test-helpers";
import { createSupervisor } from "../supervisor/supervisor";
import { freshQueue, getJob, testWorkers, waitFor } from "../worker/test-support";
import { tracingActive } from "./tracing";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ max: 10 });
const exporter = new InMemorySpanExporter();
const startWorker = testWorkers(t.pool);
const params = { report: "daily_usage", period: "2026-11" };

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("OpenTelemetry traces", () => {
  it("without an SDK, nothing is traced and no trace context is stored", async () => {
    expect(tracingActive()).toBe(false);
    const { job } = await enqueue(t.pool, { tenantId: "acme", type: "report.generate", params, queue: freshQueue() }, api);
    const [row] = await execute<{ traceContext: unknown }>(t.pool, sql`SELECT trace_context FROM job_catalog WHERE id = ${job.id}`);
    expect(row!.traceContext).toBeNull();
  });

  it("a job with three attempts: one trace, request → enqueue → three attempt spans, each a child of the enqueue span and linked to it", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect(tracingActive()).toBe(true);

    const queue = freshQueue();
    await startWorker(
      queue,
      {
        "report.generate": {
          retry: { baseMs: 10, capMs: 10, jitter: 0 },
          run: async (ctx) => {
            if (ctx.attempt < 3) throw new Error(`flaky, attempt ${ctx.attempt}`);
            return { ok: true };
          },
        },
      },
      { concurrency: 1, pollIntervalMs: 50 },
    );
    const sup = createSupervisor({ db: t.pool, metricsEveryMs: 0, alertsEveryMs: 0 });
    // The request that submits the job (what an HTTP instrumentation would open).
    const request = trace.getTracer("test").startSpan("POST /api/v1/jobs", { kind: SpanKind.SERVER });
    const { job } = await context.with(trace.setSpan(context.active(), request), () =>
      enqueue(t.pool, { tenantId: "acme", type: "report.generate", params, queue, maxAttempts: 5 }, api),
    );
    request.end();
    await waitFor("the third attempt to succeed", async () => {
      await sup.tick();
      return (await getJob(t.pool, job.id)).state === "succeeded";
    });
    const spans = await waitFor("three attempt spans", () => {
      const s = exporter.getFinishedSpans();
      return s.filter((x) => x.name.startsWith("jobscope.attempt")).length >= 3 ? s : null;
    });
    const [stored] = await execute<{ traceContext: { traceparent: string } }>(
      t.pool,
      sql`SELECT trace_context FROM job_catalog WHERE id = ${job.id}`,
    );
    const enqueueSpan = spans.find((s) => s.name === "jobscope.enqueue" && s.attributes["jobscope.job.id"] === job.id)!;
    const attempts = spans.filter((s) => s.name === "jobscope.attempt report.generate" && s.attributes["jobscope.job.id"] === job.id).sort(byAttempt);
    const traceId = request.spanContext().traceId;

    expect(enqueueSpan.kind).toBe(SpanKind.PRODUCER);
    expect(enqueueSpan.spanContext().traceId).toBe(traceId);
    expect(enqueueSpan.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(enqueueSpan.attributes).toMatchObject({
      "jobscope.job.type": "report.generate",
      "jobscope.job.queue": queue,
      "jobscope.tenant": "acme",
    });
    // The catalog holds the enqueue span's context (W3C traceparent).
    expect(stored!.traceContext.traceparent).toBe(`00-${traceId}-${enqueueSpan.spanContext().spanId}-01`);

    expect(attempts).toHaveLength(3);
    for (const [i, a] of attempts.entries()) {
      expect(a.kind).toBe(SpanKind.CONSUMER);
      expect(a.spanContext().traceId).toBe(traceId);
      expect(a.parentSpanContext?.spanId).toBe(enqueueSpan.spanContext().spanId);
      expect(a.links.map((l) => l.context.spanId)).toEqual([enqueueSpan.spanContext().spanId]);
      expect(a.attributes).toMatchObject({
        "jobscope.job.id": job.id,
        "jobscope.job.type": "report.generate",
        "jobscope.job.queue": queue,
        "jobscope.tenant": "acme",
        "jobscope.attempt": i + 1,
      });
    }
    expect(attempts.map((a) => a.attributes["jobscope.attempt.outcome"])).toEqual(["fail", "fail", "finish"]);
    expect(attempts.map((a) => a.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
  });
});

const byAttempt = (a: ReadableSpan, b: ReadableSpan) => Number(a.attributes["jobscope.attempt"]) - Number(b.attributes["jobscope.attempt"]);
