import { z } from "zod";

/**
 * Every job type the platform accepts, with its params schema and defaults.
 * `enqueue` validates against this registry; workers register a handler per
 * type. A type missing here is refused at submit time.
 */
export const JOB_TYPES = {
  "export.tenant_data": {
    description: "Export a tenant's data in chunks; slow, checkpoints between chunks",
    queue: "exports",
    maxAttempts: 5,
    params: z.strictObject({
      dataset: z.enum(["orders", "customers", "invoices", "events"]),
      rows: z.int().min(1).max(10_000_000),
      chunkRows: z.int().min(100).max(1_000_000).default(10_000),
      format: z.enum(["csv", "jsonl", "parquet"]).default("csv"),
    }),
  },
  "media.render": {
    description: "Render a video; CPU-heavy, sometimes runs out of memory",
    queue: "media",
    maxAttempts: 3,
    params: z.strictObject({
      assetId: z.string().min(1).max(200),
      frames: z.int().min(1).max(100_000),
      resolution: z.enum(["720p", "1080p", "4k"]).default("1080p"),
    }),
  },
  "report.generate": {
    description: "Build a report; quick",
    queue: "default",
    maxAttempts: 3,
    params: z.strictObject({
      report: z.enum(["daily_usage", "billing_summary", "audit_trail"]),
      period: z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/, "a period like 2026-11 or 2026-11-29"),
    }),
  },
  "upstream.call": {
    description: "Call a partner API that times out some of the time",
    queue: "default",
    maxAttempts: 4,
    params: z.strictObject({
      endpoint: z.string().min(1).max(500),
      /** Probability that an attempt times out, 0..1. */
      timeoutRate: z.number().min(0).max(1).default(0.3),
      /** The first n attempts time out whatever the rate: a partner that recovers. */
      failFirstAttempts: z.int().min(0).max(100).default(0),
    }),
  },
  "poison.crash": {
    description: "A job that kills the worker process that runs it",
    queue: "default",
    maxAttempts: 3,
    params: z.strictObject({ reason: z.string().max(200).default("segfault in native codec") }),
  },
} as const satisfies Record<string, { description: string; queue: string; maxAttempts: number; params: z.ZodType }>;

export type JobType = keyof typeof JOB_TYPES;
export type JobParams<T extends JobType> = z.output<(typeof JOB_TYPES)[T]["params"]>;

export const isJobType = (t: string): t is JobType => Object.hasOwn(JOB_TYPES, t);
