import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TimeInput,
} from "@opentelemetry/api";
import type { ProxyTracerProvider } from "@opentelemetry/api";

/**
 * OpenTelemetry traces, through @opentelemetry/api only: the application that runs
 * Jobscope chooses the SDK and exporter (the usual OTEL_* environment variables, or its own
 * instrumentation file); with none registered every call here is a no-op and nothing is exported.
 *
 * - `jobscope.enqueue` (producer): around a submit; the W3C trace context of that span is stored
 *   with the job (job_catalog.trace_context, written with the catalog row, never changed);
 * - `jobscope.attempt` (consumer): one per attempt, from the claim to the worker being done with it,
 *   a child of the stored context (so one trace shows request → enqueue → every attempt) and linked
 *   to it; attributes: job id, type, queue, tenant, attempt, outcome;
 * - `console <action>`: around the console's server actions.
 */
export const TRACER_NAME = "jobscope";
export const tracer = () => trace.getTracer(TRACER_NAME);

/** Is an SDK registered? (The API's provider delegates to nothing until one is.) Spans are cheap no-ops either way. */
export function tracingActive(): boolean {
  const p = trace.getTracerProvider() as Partial<ProxyTracerProvider>;
  return typeof p.getDelegateTracer === "function" ? p.getDelegateTracer(TRACER_NAME) !== undefined : true;
}

/** Run `fn` in an active span that ends with it, recording an exception as the span's error. */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  opts: { kind?: SpanKind; parent?: Context; links?: Link[]; startTime?: TimeInput } = {},
): Promise<T> {
  const parent = opts.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    { kind: opts.kind ?? SpanKind.INTERNAL, attributes, links: opts.links, startTime: opts.startTime },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (e) {
        span.recordException(e instanceof Error ? e : String(e));
        span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}

/** The stored form of a trace context: what the global propagator injects (W3C: traceparent, tracestate). */
export type TraceCarrier = Record<string, string>;

/** The active trace context, to store with a job; null when there is none (no SDK, or not sampled in). */
export function injectTraceContext(ctx: Context = context.active()): TraceCarrier | null {
  if (!trace.getSpanContext(ctx)) return null;
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** A stored trace context back as a parent context (ROOT when none was stored). */
export function extractTraceContext(carrier: unknown): Context {
  if (!carrier || typeof carrier !== "object") return ROOT_CONTEXT;
  const clean: TraceCarrier = {};
  for (const [k, v] of Object.entries(carrier as Record<string, unknown>)) if (typeof v === "string" && v.length <= 512) clean[k] = v;
  return propagation.extract(ROOT_CONTEXT, clean);
}

export { SpanKind, SpanStatusCode };
