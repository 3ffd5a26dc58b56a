import { performance } from "node:perf_hooks";
import { z } from "zod";
import { transition } from "../jobs/transition";
import { isJobType, JOB_TYPES, type JobParams, type JobType } from "../jobs/job-types";
import { DEFAULT_RETRY, type BackoffOptions } from "./backoff";
import { createContext, type ContextDeps } from "./context";
import { withDbRetry } from "./db-retry";
import { describeError, DrainTimeout, errorStack, JobCancelled, PermanentError } from "./errors";
import type { Lease } from "./lease";
import type { BatchItem } from "../jobs/complete";
import { report, send, type HandlerOutcome, type ReportDeps } from "./report";
import type { HandlerSpec, Handlers, JobContext, JobOutcome } from "./types";

export type RunDeps = ReportDeps &
  ContextDeps & {
    handlers: Handlers;
    retry: Partial<BackoffOptions>;
    /** True once the worker is draining: a job not started yet is released instead, its attempt refunded. */
    draining?: () => boolean;
    /**
     * Called once the job's handler is done (or never ran), before its report goes out: the
     * handler's slot is free then, and the report waits for its round without holding it.
     */
    handlerDone?: (lease: Lease) => void;
    /** This worker as the actor of its transitions (one object for every report). */
    actor?: { kind: "worker"; id: string };
  };

/** A handler bound to its parsed params, or why the job cannot run here. */
type Prepared =
  | { ok: true; retry: Partial<BackoffOptions> | undefined; run: (ctx: JobContext<never>) => Promise<unknown>; params: unknown }
  | { ok: false; error: Error };

class NoHandlerError extends Error {
  override name = "NoHandlerError";
}
class InvalidParamsError extends PermanentError {
  override name = "InvalidParamsError";
}

function prepare<T extends JobType>(type: T, handlers: Handlers, raw: unknown): Prepared {
  const spec: HandlerSpec<T> | undefined = handlers[type];
  // Another worker may have the handler, so this is worth a retry, not a permanent error.
  if (!spec) return { ok: false, error: new NoHandlerError(`this worker has no handler for ${type}`) };
  // JOB_TYPES[T]["params"] is a union of schemas under a generic key; its output is JobParams<T>.
  const schema = JOB_TYPES[type].params as unknown as z.ZodType<JobParams<T>>;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: new InvalidParamsError(z.prettifyError(parsed.error)) };
  return typeof spec === "function"
    ? { ok: true, retry: undefined, run: spec, params: parsed.data }
    : { ok: true, retry: spec.retry, run: spec.run, params: parsed.data };
}

/**
 * How the worker hears that an attempt is over, once per job: its outcome, or null and the error
 * when the runner itself threw (a bug in the worker). One function per worker, not per job; it must
 * not throw, as it is called from a round's answer beside the other reports' callbacks.
 */
export type Done = (lease: Lease, outcome: JobOutcome | null, bug?: unknown) => void;

/**
 * One attempt of one claimed job: start it (unless the claim did), run the handler, report how it
 * ended, and call `done`. The common case — claimed as running, a handler that returns, a report
 * that applies — is the handler's promise and one callback from the round: a busy worker runs
 * tens of thousands of these a second, and each promise chained per job, each async frame kept
 * alive across an await, was CPU taken from the database on the same cores (docs/decisions.md,
 * "The worker's node CPU").
 */
export function runJob(lease: Lease, deps: RunDeps, done: Done): void {
  if (lease.job.state === "running") return handle(lease, deps, done);
  startThen(lease, deps).then(
    (early) => {
      if (!early) return handle(lease, deps, done);
      if (!lease.handlerReleased) handlerDone(lease, deps);
      done(lease, early);
    },
    (e: unknown) => {
      if (!lease.handlerReleased) handlerDone(lease, deps);
      done(lease, null, e);
    },
  );
}

/** `runJob` as a promise: for a caller that awaits one attempt (a traced one, a test). */
export function runJobAsync(lease: Lease, deps: RunDeps): Promise<JobOutcome> {
  return new Promise((resolve, reject) => runJob(lease, deps, (_, o, bug) => (o ? resolve(o) : reject(bug))));
}

function handlerDone(lease: Lease, deps: RunDeps) {
  lease.handlerReleased = true;
  deps.handlerDone?.(lease);
}

const elapsed = (lease: Lease) => Date.now() - lease.startedAt;
const baseOf = (lease: Lease) => ({ jobId: lease.id, type: lease.job.type, attempt: lease.attempt });

/**
 * A job claimed without `startNow`: `start` it (or, while draining, release it). Null once it is
 * started and its handler may run; otherwise the outcome of an attempt that never ran.
 */
async function startThen(lease: Lease, deps: RunDeps): Promise<JobOutcome | null> {
  const base = baseOf(lease);
  const start = leaseMove(lease, deps, "start");
  if (deps.draining?.()) return release(lease, deps, base);
  let started;
  try {
    started = (await withDbRetry("start", () => send(deps, lease, start), { log: deps.log, signal: lease.signal })).value;
  } catch (e) {
    deps.log.error("could not start a claimed job; its lease will expire", { ...base, ...describeError(e) });
    return { ...base, status: lease.lost ? "lease_lost" : "failed_to_report", event: "start", durationMs: elapsed(lease) };
  }
  if (!started.ok) {
    deps.log.info("start refused; dropping the job", { ...base, kind: started.kind, reason: started.reason });
    return { ...base, status: "refused", event: "start", state: started.current?.state, reason: started.reason, durationMs: elapsed(lease) };
  }
  lease.learn(started.job.state, started.job.stateVersion);
  return null;
}

/** Run the handler of a started job, then conclude. The handler's slot is freed however this ends. */
function handle(lease: Lease, deps: RunDeps, done: Done): void {
  const type = lease.job.type;
  let prepared: Prepared | null = null;
  let t0 = 0;
  let ran: Promise<unknown>;
  // Nothing here may throw past this function: the worker calls it from its claim's callback.
  try {
    prepared = isJobType(type)
      ? prepare(type, deps.handlers, lease.job.params)
      : { ok: false, error: new PermanentError(`unknown job type ${type}`) };
    t0 = performance.now();
    ran = prepared.ok ? Promise.resolve(prepared.run(createContext(lease, prepared.params as never, deps))) : Promise.reject(prepared.error);
  } catch (e) {
    ran = Promise.reject(e);
  }
  void ran.then(
    (result) => {
      lease.handlerMs = performance.now() - t0;
      try {
        conclude(lease, { kind: "success", result }, deps, done);
      } catch (bug) {
        done(lease, null, bug);
      }
    },
    (e: unknown) => {
      // Before describing the error: a thrown Error's own getters may throw too.
      if (!lease.handlerReleased) handlerDone(lease, deps);
      try {
        conclude(lease, failure(e, prepared, deps), deps, done);
      } catch (bug) {
        done(lease, null, bug);
      }
    },
  );
}

/** How a handler's throw (or a job that could not get one) retries: the worker's options over the defaults, the handler's over both. */
function failure(e: unknown, prepared: Prepared | null, deps: RunDeps): HandlerOutcome {
  const retry = { ...DEFAULT_RETRY, ...deps.retry, ...(prepared?.ok ? prepared.retry : undefined) };
  if (e instanceof JobCancelled) return { kind: "cancelled", error: describeError(e), retry };
  const stack = errorStack(e);
  return { kind: "error", error: { ...describeError(e), ...(stack && { stack }) }, permanent: e instanceof PermanentError, retry };
}

/** The handler is done: free its slot, then report its outcome (unless the lease went meanwhile). */
function conclude(lease: Lease, outcome: HandlerOutcome, deps: RunDeps, done: Done): void {
  if (!lease.handlerReleased) handlerDone(lease, deps);
  if (lease.lost) {
    // Whatever the handler did after the lease went, the next attempt owns the job now.
    const status = lease.lossReason instanceof DrainTimeout ? "drained" : "lease_lost";
    return done(lease, { ...baseOf(lease), status, durationMs: elapsed(lease) });
  }
  // The common case in one step: a handler that succeeded on a job still running under our lease.
  if (outcome.kind === "success" && lease.state === "running" && deps.batch) return finishFast(lease, outcome, deps, done);
  reportThen(lease, outcome, deps, done);
}

function reportThen(lease: Lease, outcome: HandlerOutcome, deps: RunDeps, done: Done) {
  report(lease, outcome, deps).then(
    (o) => done(lease, o),
    (e: unknown) => done(lease, null, e),
  );
}

/** `start` or `release` of a claimed job by this worker, on the state and version its lease last saw. */
function leaseMove(lease: Lease, deps: RunDeps, event: "start" | "release") {
  return {
    jobId: lease.id,
    event,
    actor: { kind: "worker", id: deps.workerId },
    attempt: lease.attempt,
    expected: { state: lease.state, version: lease.stateVersion },
  } as const;
}

/**
 * Hand a claimed, never-started job back to the queue while draining: the
 * `release` event refunds the attempt (lib/fsm/table.ts). If it cannot be
 * written, the lease expires and the supervisor reclaims the job instead.
 */
async function release(lease: Lease, deps: RunDeps, base: { jobId: string; type: string; attempt: number }): Promise<JobOutcome> {
  const input = leaseMove(lease, deps, "release");
  try {
    const r = (await withDbRetry("release", () => transition(deps.db, input), { log: deps.log, signal: lease.signal, tries: 3 })).value;
    if (r.ok) return { ...base, status: "released", event: "release", state: r.job.state, durationMs: elapsed(lease) };
    return { ...base, status: "refused", event: "release", state: r.current?.state, reason: r.reason, durationMs: elapsed(lease) };
  } catch (e) {
    deps.log.warn("could not release a claimed job; its lease will expire", { ...base, ...describeError(e) });
    return { ...base, status: "failed_to_report", event: "release", durationMs: elapsed(lease) };
  }
}

/**
 * `finish` through the worker's rounds without the general report's decisions. When it does not
 * apply (or the round failed), the general path (`report`) decides, retries and classifies as for
 * any report.
 */
function finishFast(lease: Lease, outcome: HandlerOutcome & { kind: "success" }, deps: RunDeps, done: Done): void {
  const item: BatchItem = {
    jobId: lease.id,
    event: "finish",
    actor: deps.actor ?? { kind: "worker", id: deps.workerId },
    attempt: lease.attempt,
    expected: { state: "running", version: lease.stateVersion },
  };
  if (outcome.result !== undefined) item.result = outcome.result;
  // Called from the round's answer, with the rest of its reports: it must not throw.
  deps.batch!.push(item, (moved) => {
    if (!moved) return reportThen(lease, outcome, deps, done);
    try {
      lease.learn(moved.state, moved.stateVersion);
      done(lease, {
        jobId: lease.id,
        type: lease.job.type,
        attempt: lease.attempt,
        status: "reported",
        event: "finish",
        state: moved.state,
        durationMs: elapsed(lease),
      });
    } catch (bug) {
      done(lease, null, bug);
    }
  });
}
