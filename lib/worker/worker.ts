import { claim } from "../jobs/claim";
import { applyWorkerBatch, Batcher, type BatchItem } from "../jobs/complete";
import type { TransitionResult } from "../jobs/types";
import type { ClaimedJob } from "../jobs/types";
import { backoffDelay, DB_RETRY } from "./backoff";
import { DrainTimeout } from "./errors";
import { beat, everyInterval } from "./heartbeats";
import { Lease } from "./lease";
import { withDbRetry } from "./db-retry";
import { consoleLogger, errorFields, withFields } from "./log";
import { defaultWorkerId, markWorkerStopped, registerWorker, touchWorker } from "./registry";
import { runJob, type RunDeps } from "./run-job";
import type { JobOutcome, Worker, WorkerOptions } from "./types";
import { sleep, Wakeup } from "./wakeup";

/** How long a drain waits for each of its own database steps (not the handlers: those get `drainTimeoutMs`). */
const DRAIN_STEP_MS = 2000;

/** The channel `enqueue` (and `retry`/`replay`) notify with the queue's name. */
export const QUEUED_CHANNEL = "jobscope_queued";

export function createWorker(opts: WorkerOptions): Worker {
  const { sql, queues, concurrency } = opts;
  const id = opts.id ?? defaultWorkerId();
  const heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 1000;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const drainTimeoutMs = opts.drainTimeoutMs ?? 30_000;
  const log = withFields(opts.log ?? consoleLogger(), { worker: id });
  const record = { id, queues, concurrency };
  // Keyed by job and attempt: a handler that lost its lease may still be running
  // when this same worker claims the job's next attempt.
  const leases = new Map<string, Lease>();
  const running = new Set<Promise<void>>();
  const wakeup = new Wakeup();
  let phase: "idle" | "running" | "stopping" | "stopped" = "idle";
  let claimLoop: Promise<void> = Promise.resolve();
  let beats: { stop: () => Promise<void> } | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let listening = false;
  let stopping: Promise<void> | null = null;
  // Batching (default on): completions of many jobs share one statement (group commit: what
  // arrives while one flush is in flight goes in the next). Claims for free slots also start the
  // jobs; `prefetch` claims that many more into a local buffer (started when they get a slot).
  const batching = opts.batch !== false;
  const batch = batching
    ? new Batcher<BatchItem, TransitionResult | null>((items) => applyWorkerBatch(sql, id, items), {
        delayMs: opts.batchDelayMs ?? 0,
        maxSize: 1000,
      })
    : undefined;
  const prefetch = Math.max(0, opts.prefetch ?? 0);
  const fetchCooldownMs = opts.fetchCooldownMs ?? 2;
  /** Claimed, not yet launched: heartbeated with the rest, launched as slots free. */
  const buffer: Lease[] = [];

  const refresh = async (lease: Lease) => {
    lease.checkedAt = Date.now();
    try {
      await beat(sql, id, [lease]);
    } catch (e) {
      log.warn("checkpoint could not refresh the job's state; using the last known one", { jobId: lease.id, ...errorFields(e) });
    }
  };
  const deps: RunDeps = {
    sql, workerId: id, log, refresh, handlers: opts.handlers, retry: opts.retry ?? {}, allowProcessKill: opts.allowProcessKill ?? false,
    draining: () => phase !== "running",
    batch,
  };

  function launch(lease: Lease) {
    const job = lease.job;
    const key = `${job.id}:${job.attempt}`;
    leases.set(key, lease);
    const done = runJob(lease, deps)
      .then((outcome) => emit(outcome))
      // runJob reports refusals and database failures as outcomes; this is a bug in the worker itself.
      .catch((e: unknown) => log.error("job runner or onOutcome threw", { jobId: job.id, ...errorFields(e) }))
      .finally(() => {
        leases.delete(key);
        running.delete(done);
        wakeup.ring();
      });
    running.add(done);
  }

  function emit(outcome: JobOutcome) {
    log.debug("job done", { ...outcome });
    opts.onOutcome?.(outcome);
  }

  async function loop() {
    let failures = 0;
    let emptyAt = 0;
    while (phase === "running") {
      launchBuffered();
      // A handler that lost its lease still holds its slot until it returns: it may still be using the CPU.
      const want = concurrency + prefetch - leases.size - buffer.length;
      // Refill the prefetch buffer when it is half empty, not on every freed slot.
      if (want > 0 && (leases.size < concurrency || buffer.length <= prefetch / 2)) {
        // A short cooldown after a fetch that found the queue empty: a burst of NOTIFYs becomes one claim.
        const cooldown = emptyAt + fetchCooldownMs - Date.now();
        if (cooldown > 0) await sleep(cooldown);
        let jobs: ClaimedJob[];
        // Jobs that get a slot at once are claimed and started in one statement (one UPDATE of the row, not two).
        const startNow = buffer.length === 0 && phase === "running" ? Math.max(0, concurrency - leases.size) : 0;
        try {
          jobs = await claim(sql, { workerId: id, queues, limit: want, startNow });
          failures = 0;
        } catch (e) {
          const delay = backoffDelay(++failures, DB_RETRY);
          log.warn(`claim failed; retrying in ${delay}ms`, errorFields(e));
          await wakeup.wait(delay);
          continue;
        }
        // Jobs claimed while stop() was called are ours all the same: the drain launches (or releases) them.
        for (const job of jobs) {
          if (job.state === "claimed") buffer.push(new Lease(job));
          else launch(new Lease(job));
        }
        launchBuffered();
        if (jobs.length === want) continue;
        emptyAt = Date.now();
      }
      await wakeup.wait(pollIntervalMs);
    }
  }

  /** Move buffered claims into free slots; a buffered job whose lease was lost is dropped. */
  function launchBuffered() {
    while (buffer.length > 0 && (leases.size < concurrency || phase !== "running")) {
      const lease = buffer.shift()!;
      if (!lease.lost) launch(lease);
    }
  }

  async function listen() {
    if (listening) return;
    listening = true;
    try {
      const meta = await sql.listen(QUEUED_CHANNEL, (queue) => {
        if (queues.includes(queue)) wakeup.ring();
      });
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
      await touchWorker(sql, record);
    } catch (e) {
      log.warn("could not update workers.last_seen_at", errorFields(e));
    }
    try {
      await beat(sql, id, [...leases.values(), ...buffer]);
    } catch (e) {
      log.warn("heartbeat failed; the next tick tries again", errorFields(e));
    }
  }

  /** A drain step that talks to the database: bounded, so a stuck connection cannot hold the drain. */
  async function bounded(what: string, step: Promise<unknown>) {
    const timeout = new AbortController();
    const ok = await Promise.race([step.then(() => true, () => true), sleep(DRAIN_STEP_MS, timeout.signal).then(() => false)]);
    timeout.abort();
    if (!ok) log.warn(`drain: ${what} did not finish within ${DRAIN_STEP_MS}ms; going on without it`);
  }

  async function drain() {
    phase = "stopping";
    wakeup.ring();
    await bounded("the claim in flight", claimLoop);
    // Buffered claims never started: launched now, each is released while draining.
    launchBuffered();
    await bounded("UNLISTEN", unlisten?.().catch((e: unknown) => log.warn("UNLISTEN failed", errorFields(e))) ?? Promise.resolve());
    const timeout = new AbortController();
    const allDone = Promise.allSettled([...running]).then(() => true);
    const drained = await Promise.race([allDone, sleep(drainTimeoutMs, timeout.signal).then(() => false)]);
    timeout.abort();
    if (!drained) {
      log.warn("drain timed out; aborting the remaining handlers, their leases will expire", { jobs: leases.size });
      for (const lease of leases.values()) lease.lose(new DrainTimeout(lease.id));
      // A short grace for handlers that honour the signal, so their outcomes are logged.
      const grace = new AbortController();
      await Promise.race([Promise.allSettled([...running]), sleep(1000, grace.signal)]);
      grace.abort();
    }
    phase = "stopped";
    await bounded("the last heartbeat", beats?.stop() ?? Promise.resolve());
    await bounded("marking the worker stopped", markWorkerStopped(sql, id).catch((e: unknown) => log.warn("could not mark the worker stopped", errorFields(e))));
    log.info("worker stopped");
  }

  return {
    id,
    async start() {
      if (phase !== "idle") throw new Error(`worker ${id} was already started`);
      // A worker started while the database is down (or restarting) waits for it with backoff.
      await withDbRetry("register", () => registerWorker(sql, record), { log, tries: 12 });
      phase = "running";
      await listen();
      beats = everyInterval(heartbeatIntervalMs, beatOnce);
      claimLoop = loop();
      log.info("worker started", { queues, concurrency });
    },
    stop() {
      if (phase === "idle") phase = "stopped";
      stopping ??= phase === "stopped" ? Promise.resolve() : drain();
      return stopping;
    },
    inFlight: () => [...leases.values()].map((l) => l.info()),
  };
}
