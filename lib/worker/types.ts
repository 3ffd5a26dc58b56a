import type { Pool } from "../db/client";
import type { JobEvent, JobState } from "../fsm/table";
import type { JobParams, JobType } from "../jobs/job-types";
import type { ScheduleDeclaration } from "../schedules/schedules";
import type { BackoffOptions } from "./backoff";

export type LogFields = Record<string, unknown>;
export type Logger = {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
};

/** What a handler sees of its job. */
export type JobInfo<P> = {
  id: string;
  tenantId: string;
  type: JobType;
  queue: string;
  priority: number;
  attempt: number;
  maxAttempts: number;
  createdAt: Date;
  /** Parsed with the type's zod schema from JOB_TYPES: defaults applied. */
  params: P;
};

export type JobContext<P = unknown> = {
  job: JobInfo<P>;
  /**
   * The fencing token of this attempt. Delivery is at-least-once: a handler
   * whose lease was lost may still be running while another worker runs the
   * next attempt. Pass `attempt` (with `job.id`) to downstream systems that
   * have side effects, so they can refuse a write from an older attempt.
   */
  attempt: number;
  /**
   * Aborted when the lease is lost (the supervisor reclaimed the job, or it was
   * cancelled outside the worker) or when `stop()` gave up waiting. Pass it to
   * fetch() and friends. Nothing the handler does afterwards is reported.
   */
  signal: AbortSignal;
  /**
   * A safe point. Throws `JobCancelled` when the job is cancelling, waits while
   * it is paused (until resumed, cancelled or the lease is lost), and throws
   * the abort reason when the lease is lost. Cheap to call often: it asks the
   * database only when the worker's last word on the job is older than ~500ms.
   */
  checkpoint(): Promise<void>;
  /**
   * Report how far the handler is: `done` of `total` (default 100: a percentage), shown as a bar on
   * the job's page and in the jobs list. It only records the value; the worker's next heartbeat
   * (every second) writes the latest one, so calling it for every row of a loop costs nothing.
   * Throws a RangeError unless 0 ≤ done ≤ total and total > 0 (finite numbers).
   */
  progress(done: number, total?: number): void;
  log: Logger;
  worker: { id: string; allowProcessKill: boolean };
};

export type JobHandler<T extends JobType> = (ctx: JobContext<JobParams<T>>) => Promise<unknown>;

/** A handler, or a handler with its own retry backoff. */
export type HandlerSpec<T extends JobType> = JobHandler<T> | { run: JobHandler<T>; retry?: Partial<BackoffOptions> };

export type Handlers = { [T in JobType]?: HandlerSpec<T> };

/** One line per job: what the worker did with it. */
export type JobOutcome = {
  jobId: string;
  type: string;
  attempt: number;
  /**
   * reported: the transition applied. refused: the write path refused it (someone
   * else moved the job). lease_lost / drained: not reported, the lease will expire
   * or already has. failed_to_report: the database kept failing. released: claimed
   * while the worker was draining, handed back unstarted (attempt refunded).
   */
  status: "reported" | "refused" | "lease_lost" | "drained" | "failed_to_report" | "released";
  event?: JobEvent;
  state?: JobState;
  durationMs: number;
  error?: { class: string; message: string };
  reason?: string;
};

export type WorkerOptions = {
  /** A pool, not a transaction: the worker also LISTENs on it. */
  db: Pool;
  /** Also the lease owner written on claimed jobs. Default: host-pid-random. */
  id?: string;
  queues: string[];
  concurrency: number;
  handlers: Handlers;
  heartbeatIntervalMs?: number;
  pollIntervalMs?: number;
  drainTimeoutMs?: number;
  /**
   * Batch (default true): each statement carries the reports that wait and the claim of the next
   * jobs, `pipelines` statements in flight, up to `maxBatch` reports and `maxBatch` claims each.
   * `false`: one job per statement (each of `concurrency` slots reports its last job and claims its
   * next in one statement, like a worker without a local queue).
   */
  batch?: boolean;
  /**
   * Unbatched: the connections the slots' statements are pipelined on, reserved from `db` (default:
   * one per four slots; 0: the pool's own, one statement per connection). docs/decisions.md,
   * "One-job rounds on a few pipelined connections".
   */
  connections?: number;
  /** Statements in flight at once (default 2). */
  pipelines?: number;
  /** Of those, how many may carry a claim at once (default: every one; 1 is the runtime before claims ran side by side, kept for the benchmark's factors). */
  claimPipelines?: number;
  /** Most jobs claimed, and most reports sent, per statement (default 500). */
  maxBatch?: number;
  /**
   * Jobs to hold beyond the free slots. Default: adaptive, what the handlers finish within about
   * two round trips (a claimed job is running from its claim, so the local queue stays short).
   */
  prefetch?: number;
  /** Retry backoff for every type; a handler spec may override it per type. */
  retry?: Partial<BackoffOptions>;
  log?: Logger;
  /** Called once per job when the worker is done with it. */
  onOutcome?: (outcome: JobOutcome) => void;
  /**
   * Periodic schedules declared beside the handlers (lib/schedules): upserted by name when the worker
   * starts (a schedule an operator paused stays paused); the supervisor submits their ticks.
   */
  schedules?: readonly ScheduleDeclaration[];
  /**
   * Serve this worker's own Prometheus metrics (lib/metrics/worker-metrics.ts) at
   * http://metricsHost:metricsPort/metrics (0: any free port; see `Worker.metricsPort()`). Unset: none.
   */
  metricsPort?: number;
  /** The address the metrics endpoint listens on (default 127.0.0.1). */
  metricsHost?: string;
  /**
   * An operator asked this worker to drain (the console's Workers page; `by` is who). Default: the
   * worker drains in place, as `stop()` does. `npm run worker` passes its SIGTERM handler instead, so
   * the process drains and exits exactly as on SIGTERM.
   */
  onDrainRequest?: (by: string | null) => void;
  /** The demo's poison.crash handler may SIGKILL the process only when this is set (`npm run worker`). */
  allowProcessKill?: boolean;
};

export type InFlightInfo = {
  jobId: string;
  type: string;
  attempt: number;
  state: JobState;
  /** The handler is waiting in `checkpoint()` because the job is paused. */
  heldAtCheckpoint: boolean;
  lost: boolean;
};

export type Worker = {
  readonly id: string;
  start(): Promise<void>;
  /** Stop claiming, let in-flight jobs finish (up to drainTimeoutMs), then abort the rest. */
  stop(): Promise<void>;
  inFlight(): InFlightInfo[];
  /** Statements sent, reports carried and jobs claimed since start; whether LISTEN is up (else it polls). */
  stats(): { rounds: number; reports: number; claimed: number; listening: boolean };
  /** The port its metrics endpoint listens on once started (null: no `metricsPort`). */
  metricsPort(): number | null;
};
