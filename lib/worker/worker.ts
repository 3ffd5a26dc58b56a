import type { ClaimedJob } from "../jobs/types";
import { backoffDelay, DB_RETRY } from "./backoff";
import { builtinHandlers } from "./builtin-handlers";
import { withDbRetry } from "./db-retry";
import { DrainTimeout } from "./errors";
import { beat, everyInterval } from "./heartbeats";
import { Lease } from "./lease";
import { consoleLogger, errorFields, withFields } from "./log";
import { declareSchedules } from "../schedules/schedules";
import { defaultWorkerId, markWorkerStopped, registerWorker, touchWorker } from "./registry";
import { Rounds } from "./rounds";
import { runJob, runJobAsync, type RunDeps } from "./run-job";
import type { JobOutcome, Logger, Worker, WorkerOptions } from "./types";
import { sleep } from "./wakeup";
import { createWorkerMetrics } from "../metrics/worker-metrics";
import { extractTraceContext, SpanKind, SpanStatusCode, tracingActive, withSpan, type TraceCarrier } from "../tracing/tracing";
import { trace } from "@opentelemetry/api";
import { Fifo } from "./fifo";
import { Lanes, lanesFor } from "../db/lanes";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** How long a drain waits for each of its own database steps (not the handlers: those get `drainTimeoutMs`). */
const DRAIN_STEP_MS = 2000;

/** The channel `enqueue` (and `retry`/`replay`) notify with the queue's name. */
export const QUEUED_CHANNEL = "jobscope_queued";

/**
 * A worker: claims due jobs of its queues, runs their handlers (at most `concurrency` at once),
 * heartbeats what it holds, and reports how each attempt ended. Its steps:
 * - `Rounds` (lib/worker/rounds.ts): the statements — each carries the reports that wait and a
 *   claim for what the worker wants next, up to `pipelines` in flight;
 * - `wanted`: how many to claim — the free slots, plus a local queue sized to what the handlers
 *   finish within about two round trips (`claimAhead`);
 * - `pump`/`launch`: local queue → handler slots;
 * - `beatOnce`: the worker's row and one heartbeat statement for every job it holds;
 * - `listen` / poll: wake-ups; `drain`: SIGTERM.
 */
export function createWorker(opts: WorkerOptions): Worker {
  const { db, queues, concurrency } = opts;
  const id = opts.id ?? defaultWorkerId();
  const heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 1000;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const drainTimeoutMs = opts.drainTimeoutMs ?? 30_000;
  const log = withFields(opts.log ?? consoleLogger(), { worker: id });
  const record = { id, queues, concurrency, succeeded: 0, failed: 0 };
  const batching = opts.batch !== false;
  // Unbatched: one job per statement (each slot's statement reports its last job and claims its next).
  const pipelines = batching ? Math.max(1, opts.pipelines ?? 2) : concurrency;
  const maxBatch = batching ? Math.max(1, opts.maxBatch ?? 500) : 1;
  // Unbatched: the slots' one-job statements pipelined on a few connections (lib/db/lanes.ts).
  const lanes = batching ? null : new Lanes(db, Math.max(0, Math.floor(opts.connections ?? lanesFor(concurrency))));

  // Every lease the worker holds (a handler that lost its lease may still be running when this
  // same worker claims the job's next attempt: two leases of one job, two entries).
  const leases = new Set<Lease>();
  /** Claimed (and started: the claim starts them), waiting for a handler slot. */
  const local = new Fifo<Lease>();
  /** Handlers running (their reports may still be in flight after: `reporting`). */
  let active = 0;
  let reporting = 0;
  let phase: "idle" | "running" | "stopping" | "stopped" = "idle";
  let beats: { stop: () => Promise<void> } | null = null;
  let poll: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let listening = false;
  let stopping: Promise<void> | null = null;
  let claimFailures = 0;
  /** An operator's drain request was seen (it is acted on once). */
  let drainAsked = false;
  const allDone: (() => void)[] = [];

  // The worker's own metrics (lib/metrics/worker-metrics.ts): in-process counters, served only with `metricsPort`.
  const metrics =
    opts.metricsPort === undefined
      ? null
      : createWorkerMetrics(id, { stats: () => ({ ...rounds.stats, listening: unlisten !== null }), held: () => leases.size });
  let metricsServer: { port: number; close: () => Promise<void> } | null = null;

  const ahead = claimAhead(concurrency, maxBatch * pipelines, opts.prefetch);

  const rounds = new Rounds({
    db,
    ...(lanes && { lanes }),
    workerId: id,
    queues,
    pipelines,
    maxBatch,
    claimPipelines: Math.max(1, Math.min(pipelines, opts.claimPipelines ?? pipelines)),
    wanted: (claimsInFlight) => {
      if (phase !== "running") return 0;
      const want = concurrency + ahead.target() - (local.length + active + claimsInFlight);
      // While handlers are busy and work is buffered, wait until a batch's worth is free.
      return local.length + claimsInFlight > 0 && want < Math.min(maxBatch, concurrency) / 2 ? 0 : want;
    },
    onClaimed: (jobs, roundMs) => {
      claimFailures = 0;
      ahead.roundTrip(roundMs);
      take(jobs);
    },
    onClaimError: (e) => {
      const delay = backoffDelay(++claimFailures, DB_RETRY);
      log.warn(`claim failed; retrying in ${delay}ms`, errorFields(e));
      setTimeout(() => rounds.wake(), delay).unref();
    },
  });

  const refresh = async (lease: Lease) => {
    lease.checkedAt = Date.now();
    try {
      await beat(db, id, [lease]);
    } catch (e) {
      log.warn("checkpoint could not refresh the job's state; using the last known one", { jobId: lease.id, ...errorFields(e) });
    }
  };
  const deps: RunDeps = {
    db,
    workerId: id,
    log,
    refresh,
    handlers: { ...builtinHandlers(db), ...opts.handlers },
    retry: opts.retry ?? {},
    allowProcessKill: opts.allowProcessKill ?? false,
    draining: () => phase !== "running",
    batch: rounds,
    actor: { kind: "worker", id },
    handlerDone: () => {
      active--;
      pump();
    },
  };

  // Traces (lib/tracing): with an OpenTelemetry SDK registered, each claimed batch's stored trace
  // contexts are read in one statement of their own (never in the claim), and each attempt runs in a
  // span that continues its job's trace. Without one, nothing is read and no span is made.
  const traceContexts = new WeakMap<Lease, Promise<TraceCarrier | null>>();
  function lookupTraces(leases: Lease[]) {
    const found = execute<{ id: string; traceContext: TraceCarrier }>(
      db,
      sql`
      SELECT id, trace_context FROM job_catalog WHERE id = ANY(${sql.param(leases.map((l) => l.id))}::uuid[]) AND trace_context IS NOT NULL`,
    ).then(
      (rows) => new Map(rows.map((r) => [r.id, r.traceContext])),
      (e: unknown) => {
        log.warn("could not read the jobs' trace contexts; their attempts start new traces", errorFields(e));
        return new Map<string, TraceCarrier>();
      },
    );
    for (const l of leases)
      traceContexts.set(
        l,
        found.then((m) => m.get(l.id) ?? null),
      );
  }

  function take(jobs: ClaimedJob[]) {
    const taken: Lease[] = [];
    for (const job of jobs) {
      const lease = new Lease(job);
      leases.add(lease);
      local.push(lease);
      taken.push(lease);
    }
    if (taken.length > 0 && tracingActive()) lookupTraces(taken);
    pump();
  }

  /** Local queue → free handler slots. A job whose lease was lost meanwhile is dropped. */
  function pump() {
    while (active < concurrency && local.length > 0) {
      const lease = local.shift()!;
      if (lease.lost) leases.delete(lease);
      else launch(lease);
    }
  }

  function launch(lease: Lease) {
    active++;
    reporting++;
    const traced = traceContexts.get(lease);
    if (traced)
      void runTraced(lease, traced).then(
        (o) => finished(lease, o),
        (e: unknown) => finished(lease, null, e),
      );
    else runJob(lease, deps, finished);
  }

  /** An attempt is over (lib/worker/run-job.ts `Done`). */
  function finished(lease: Lease, outcome: JobOutcome | null, bug?: unknown) {
    // runJob reports refusals and database failures as outcomes; this is a bug in the worker itself.
    if (!outcome) log.error("job runner threw", { jobId: lease.id, ...errorFields(bug) });
    else if (lease.handlerMs >= 0) ahead.handled(lease.handlerMs);
    settle(lease, outcome);
  }

  /** One attempt in a consumer span: from the claim to the worker being done with it, in its job's trace. */
  async function runTraced(lease: Lease, carrier: Promise<TraceCarrier | null>): Promise<JobOutcome> {
    const parent = extractTraceContext(await carrier);
    const enqueued = trace.getSpanContext(parent);
    const job = lease.job;
    const attributes = {
      "jobscope.job.id": job.id,
      "jobscope.job.type": job.type,
      "jobscope.job.queue": job.queue,
      "jobscope.tenant": job.tenantId,
      "jobscope.attempt": lease.attempt,
      "jobscope.job.max_attempts": job.maxAttempts,
      "jobscope.worker": id,
    };
    return withSpan(
      `jobscope.attempt ${job.type}`,
      attributes,
      async (span) => {
        const outcome = await runJobAsync(lease, deps);
        span.setAttributes({
          "jobscope.attempt.outcome": outcome.status === "reported" ? (outcome.event ?? "reported") : outcome.status,
          ...(outcome.state && { "jobscope.job.state": outcome.state }),
          ...(outcome.error && { "jobscope.error.class": outcome.error.class }),
        });
        const failed = outcome.status !== "reported" || outcome.event !== "finish";
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error?.message ?? outcome.reason ?? outcome.status });
        return outcome;
      },
      {
        kind: SpanKind.CONSUMER,
        parent,
        links: enqueued ? [{ context: enqueued, attributes: { "jobscope.link": "enqueue" } }] : [],
        startTime: lease.startedAt,
      },
    );
  }

  function settle(lease: Lease, outcome: JobOutcome | null) {
    reporting--;
    leases.delete(lease);
    if (outcome) {
      metrics?.outcome(outcome);
      if (outcome.status === "reported") {
        if (outcome.event === "finish") record.succeeded++;
        else if (outcome.event === "fail" || outcome.event === "abandon") record.failed++;
      }
      if (opts.onOutcome) {
        try {
          opts.onOutcome(outcome);
        } catch (e) {
          log.error("onOutcome threw", { jobId: lease.id, ...errorFields(e) });
        }
      }
    }
    if (reporting === 0 && local.length === 0) for (const r of allDone.splice(0)) r();
  }

  async function listen() {
    if (listening) return;
    listening = true;
    try {
      // onlisten runs on every (re)connection of the listening connection: a NOTIFY sent while it
      // was down is lost, so the worker claims once to catch up.
      const meta = await db.$client.listen(
        QUEUED_CHANNEL,
        (queue) => {
          if (queues.includes(queue)) rounds.wake();
        },
        () => rounds.wake(),
      );
      unlisten = meta.unlisten;
    } catch (e) {
      listening = false;
      log.warn("LISTEN failed; claiming by polling until it works", errorFields(e));
    }
  }

  // One tick per heartbeatIntervalMs: the worker's own row, then every job it holds.
  async function beatOnce() {
    if (!listening && phase === "running") void listen();
    try {
      const drain = await touchWorker(db, record);
      if (drain && phase === "running" && !drainAsked) {
        drainAsked = true;
        log.info("an operator asked this worker to drain", { by: drain.drainRequestedBy });
        // Not awaited: the drain waits for this very tick to end (it stops the heartbeats).
        queueMicrotask(() => (opts.onDrainRequest ? opts.onDrainRequest(drain.drainRequestedBy) : void api.stop()));
      }
    } catch (e) {
      log.warn("could not update workers.last_seen_at", errorFields(e));
    }
    try {
      // A lease claimed (or confirmed) within the last half interval has a fresh heartbeat_at
      // already: most of a busy worker's jobs come and go between two ticks.
      const due = Date.now() - heartbeatIntervalMs / 2;
      // …and any whose handler reported progress since (its one write per beat).
      await beat(
        db,
        id,
        [...leases].filter((l) => l.knownAt <= due || l.progressDirty),
      );
    } catch (e) {
      log.warn("heartbeat failed; the next tick tries again", errorFields(e));
    }
  }

  /** A drain step that talks to the database: bounded, so a stuck connection cannot hold the drain. */
  async function bounded(what: string, step: Promise<unknown>) {
    const timeout = new AbortController();
    const ok = await Promise.race([
      step.then(
        () => true,
        () => true,
      ),
      sleep(DRAIN_STEP_MS, timeout.signal).then(() => false),
    ]);
    timeout.abort();
    if (!ok) log.warn(`drain: ${what} did not finish within ${DRAIN_STEP_MS}ms; going on without it`);
  }

  async function drain() {
    phase = "stopping";
    rounds.stopClaiming();
    if (poll) clearInterval(poll);
    // A claim in flight still lands: its jobs are started already and run like the rest.
    await bounded("the claim in flight", waitForClaims());
    await bounded("UNLISTEN", unlisten?.().catch((e: unknown) => log.warn("UNLISTEN failed", errorFields(e))) ?? Promise.resolve());
    const timeout = new AbortController();
    const handlersDone = reporting === 0 && local.length === 0 ? Promise.resolve(true) : new Promise<boolean>((r) => allDone.push(() => r(true)));
    const drained = await Promise.race([handlersDone, sleep(drainTimeoutMs, timeout.signal).then(() => false)]);
    timeout.abort();
    if (!drained) {
      log.warn("drain timed out; aborting the remaining handlers, their leases will expire", { jobs: leases.size });
      for (const lease of leases) lease.lose(new DrainTimeout(lease.id));
      // A short grace for handlers that honour the signal, so their outcomes are logged.
      const grace = new AbortController();
      await Promise.race([new Promise<void>((r) => (reporting === 0 ? r() : allDone.push(r))), sleep(1000, grace.signal)]);
      grace.abort();
    }
    await bounded("the last reports", rounds.settled());
    lanes?.close();
    phase = "stopped";
    await bounded("the last heartbeat", beats?.stop() ?? Promise.resolve());
    await bounded(
      "marking the worker stopped",
      markWorkerStopped(db, record).catch((e: unknown) => log.warn("could not mark the worker stopped", errorFields(e))),
    );
    if (metricsServer) await bounded("closing the metrics endpoint", metricsServer.close());
    log.info("worker stopped");
  }

  /** The schedules declared in code: a bad one is logged and skipped, never a reason not to start. */
  async function declare(schedules: NonNullable<WorkerOptions["schedules"]>) {
    try {
      for (const d of await declareSchedules(db, schedules, `worker:${id}`)) {
        if (d.outcome === "conflict" || d.outcome === "invalid") log.warn(`schedule ${d.name} not declared: ${d.message ?? d.outcome}`);
        else log.info(`schedule ${d.name} ${d.outcome}`);
      }
    } catch (e) {
      log.warn("could not declare the worker's schedules", errorFields(e));
    }
  }

  async function waitForClaims() {
    while (rounds.claiming > 0) await sleep(5);
  }

  const api: Worker = {
    id,
    async start() {
      if (phase !== "idle") throw new Error(`worker ${id} was already started`);
      // A worker started while the database is down (or restarting) waits for it with backoff.
      await withDbRetry("register", () => registerWorker(db, record), { log, tries: 12 });
      if (opts.schedules?.length) await declare(opts.schedules);
      if (metrics) {
        metricsServer = await metrics.serve(opts.metricsPort!, opts.metricsHost);
        log.info("worker metrics served", { url: `http://${opts.metricsHost ?? "127.0.0.1"}:${metricsServer.port}/metrics` });
      }
      await lanes?.open();
      phase = "running";
      await listen();
      beats = everyInterval(heartbeatIntervalMs, beatOnce);
      // The poll: a wake-up lost with a dropped LISTEN connection costs at most this long.
      poll = setInterval(() => rounds.wake(), pollIntervalMs);
      rounds.wake();
      log.info("worker started", { queues, concurrency });
    },
    stop() {
      if (phase === "idle") phase = "stopped";
      stopping ??= phase === "stopped" ? Promise.resolve() : drain();
      return stopping;
    },
    inFlight: () => [...leases].map((l) => l.info()),
    stats: () => ({ ...rounds.stats, listening: unlisten !== null }),
    metricsPort: () => metricsServer?.port ?? null,
  };
  return api;
}

/**
 * How many jobs to hold beyond the free slots. A job is `running` from its claim (the claim
 * starts it), so the local queue is kept to what the handlers will finish within about two round
 * trips: hundreds for handlers that take microseconds, none for handlers that take seconds.
 * `fixed` (the `prefetch` option) overrides it.
 */
function claimAhead(concurrency: number, max: number, fixed: number | undefined) {
  let handlerMs = -1;
  let roundMs = 5;
  return {
    target(): number {
      if (fixed !== undefined) return Math.max(0, Math.min(max, fixed));
      if (handlerMs < 0) return 0;
      return Math.max(0, Math.min(max, Math.ceil((2 * concurrency * roundMs) / Math.max(handlerMs, 0.001))));
    },
    handled(ms: number) {
      handlerMs = handlerMs < 0 ? ms : handlerMs * 0.9 + ms * 0.1;
    },
    roundTrip(ms: number) {
      roundMs = Math.min(1000, roundMs * 0.8 + ms * 0.2);
    },
  };
}

export type { Logger };
