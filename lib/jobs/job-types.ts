import { z } from "zod";

/**
 * Who may submit a type: tenants through the API (`tenant_api`), people in the console
 * (`console`), or only Jobscope's own code — the demo seed and traffic, fixtures, other jobs
 * (`internal`). Checked by `assertSubmitter` where a request enters (lib/api/jobs.ts).
 */
export const SUBMITTERS = ["tenant_api", "console", "internal"] as const;
export type Submitter = (typeof SUBMITTERS)[number];

type JobTypeSpec = {
  description: string;
  queue: string;
  maxAttempts: number;
  params: z.ZodType;
  submitters: readonly Submitter[];
  /** A numeric parameter that says how big the job is: "why was this slow" says when it was larger than usual. */
  sizeParam?: string;
};

const EVERYONE = SUBMITTERS;

/** The tenant that owns Jobscope's own jobs (drizzle/0021_bulk_on_engine.sql). */
export const BUILTIN_TENANT = "jobscope";
/** The queue of Jobscope's own jobs: a worker started without --queues claims it too. */
export const BULK_QUEUE = "jobscope";

/** The job types of a real deployment. */
const PRODUCT_TYPES = {
  "export.tenant_data": {
    description: "Export a tenant's data in chunks; slow, checkpoints between chunks",
    queue: "exports",
    maxAttempts: 5,
    submitters: EVERYONE,
    sizeParam: "rows",
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
    submitters: EVERYONE,
    sizeParam: "frames",
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
    submitters: EVERYONE,
    params: z.strictObject({
      report: z.enum(["daily_usage", "billing_summary", "audit_trail"]),
      period: z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/, "a period like 2026-11 or 2026-11-29"),
    }),
  },
  "upstream.call": {
    description: "Call a partner API that times out some of the time",
    queue: "default",
    maxAttempts: 4,
    submitters: EVERYONE,
    params: z.strictObject({
      endpoint: z.string().min(1).max(500),
      /** Probability that an attempt times out, 0..1. */
      timeoutRate: z.number().min(0).max(1).default(0.3),
      /** The first n attempts time out whatever the rate: a partner that recovers. */
      failFirstAttempts: z.int().min(0).max(100).default(0),
    }),
  },
} as const satisfies Record<string, JobTypeSpec>;

/**
 * Jobscope's own jobs, run by its own workers: every deployment has them, only its own code submits
 * them. `jobscope.bulk` applies a bulk action an operator confirmed; `jobscope.webhook` delivers one
 * alert (lib/alerts). Each inherits the engine's guarantees — at least once, retried with backoff,
 * visible in the console, replayable when dead.
 */
const SYSTEM_TYPES = {
  "jobscope.bulk": {
    description: "Built in: apply a confirmed bulk action, item by item (progress in bulk_operation_items)",
    queue: BULK_QUEUE,
    // Each attempt resumes where the last one stopped; a long outage of the database costs attempts.
    maxAttempts: 25,
    submitters: ["internal"],
    params: z.strictObject({ operationId: z.uuid() }),
  },
  "jobscope.webhook": {
    description: "Deliver an alert to its webhook, signed (lib/alerts)",
    queue: "jobscope.alerts",
    maxAttempts: 8,
    submitters: ["internal"],
    params: z.strictObject({ eventId: z.int().min(1) }),
  },
} as const satisfies Record<string, JobTypeSpec>;

/**
 * Types that exist only in the demo (`npm start`, which sets JOBSCOPE_DEMO=1, and the tests):
 * elsewhere they are unknown types, refused at submit time and failed by workers. Even in the demo
 * only Jobscope's own code submits them: a tenant's job must not crash the workers every tenant shares.
 */
const DEMO_TYPES = {
  "poison.crash": {
    description: "A job that kills the worker process that runs it",
    queue: "default",
    maxAttempts: 3,
    submitters: ["internal"],
    params: z.strictObject({ reason: z.string().max(200).default("segfault in native codec") }),
  },
} as const satisfies Record<string, JobTypeSpec>;

export const isDemo = (env = process.env) => env.JOBSCOPE_DEMO === "1";

/**
 * Every job type this process accepts, with its params schema and defaults.
 * `enqueue` validates against this registry; workers register a handler per
 * type. A type missing here is refused at submit time. The type names the demo
 * types too (the demo's code is compiled everywhere); at run time they are
 * present only in the demo, and every lookup goes through `isJobType` first.
 */
export const JOB_TYPES = (
  isDemo() ? { ...PRODUCT_TYPES, ...SYSTEM_TYPES, ...DEMO_TYPES } : { ...PRODUCT_TYPES, ...SYSTEM_TYPES }
) as typeof PRODUCT_TYPES & typeof SYSTEM_TYPES & typeof DEMO_TYPES;

export type JobType = keyof typeof JOB_TYPES;
export type JobParams<T extends JobType> = z.output<(typeof JOB_TYPES)[T]["params"]>;

export const isJobType = (t: string): t is JobType => Object.hasOwn(JOB_TYPES, t);

export class SubmitterError extends Error {
  constructor(
    readonly type: string,
    readonly submitter: Submitter,
  ) {
    super(`job type ${JSON.stringify(type)} cannot be submitted through ${submitter === "tenant_api" ? "the tenant API" : `the ${submitter}`}`);
    this.name = "SubmitterError";
  }
}

/** May `submitter` submit `type`? Unknown types pass here: enqueue refuses them with its own message. */
export function maySubmit(type: string, submitter: Submitter): boolean {
  return !isJobType(type) || (JOB_TYPES[type].submitters as readonly Submitter[]).includes(submitter);
}

/** Throws SubmitterError unless `submitter` may submit `type`. */
export function assertSubmitter(type: string, submitter: Submitter): void {
  if (!maySubmit(type, submitter)) throw new SubmitterError(type, submitter);
}

/**
 * The queues a tenant or a person may put a job of `type` in: the one its type declares. Queues are
 * thus known in advance (the workers claim them, the queues page and the metrics list them), and the
 * queues of Jobscope's own jobs (`jobscope`, `jobscope.*`) stay Jobscope's: no type a tenant or a
 * person may submit declares one (lib/jobs/job-types.test.ts). Jobscope's own code may name any queue.
 */
export const queuesOf = (type: JobType): readonly string[] => [JOB_TYPES[type].queue];

/** Every queue a job type declares: the queues a deployment knows by name. */
export const declaredQueues = (): string[] => [...new Set(Object.values(JOB_TYPES).map((t) => t.queue))];

/** Queues of Jobscope's own machinery, which only its own code may use. */
export const isSystemQueue = (queue: string) => queue === BULK_QUEUE || queue.startsWith(`${BULK_QUEUE}.`);

/** The types `submitter` may submit (the API's OpenAPI document lists these). */
export const typesFor = (submitter: Submitter) =>
  Object.entries(JOB_TYPES).filter(([, spec]) => (spec.submitters as readonly Submitter[]).includes(submitter));

/** The types a reader may pick in a filter or an alert: a tenant's are those it may submit, never Jobscope's own or the demo's internals. */
export const typesSeenBy = (tenant: boolean): string[] => (tenant ? typesFor("tenant_api").map(([t]) => t) : Object.keys(JOB_TYPES));

/** The type's size-like parameter (`sizeParam`), if it declares one. */
export function sizeParamOf(type: string): string | null {
  if (!isJobType(type)) return null;
  const spec: JobTypeSpec = JOB_TYPES[type];
  return spec.sizeParam ?? null;
}
