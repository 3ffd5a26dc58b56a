import type { JobType } from "../jobs/job-types";
import { JobCancelled } from "./errors";
import type { Lease } from "./lease";
import { withFields } from "./log";
import type { JobContext, Logger } from "./types";

/**
 * How old the worker's knowledge of a job's state may be before a checkpoint
 * asks the database. The heartbeat keeps it fresh anyway when its interval is
 * shorter; this bounds how long a cancel or pause goes unnoticed when it is not.
 */
export const CHECKPOINT_FRESHNESS_MS = 500;

export type ContextDeps = {
  workerId: string;
  allowProcessKill: boolean;
  log: Logger;
  /** Ask the database for this job's state now (a one-job heartbeat); never throws. */
  refresh: (lease: Lease) => Promise<void>;
};

/**
 * What a handler gets. A class, made once per job: its signal, log, worker and `checkpoint` are
 * made on first use (most handlers use none of them), and `checkpoint` stays callable when destructured.
 */
class Context<P> implements JobContext<P> {
  readonly job: JobContext<P>["job"];
  readonly attempt: number;
  private cp: (() => Promise<void>) | null = null;
  private pr: ((done: number, total?: number) => void) | null = null;

  constructor(
    private readonly lease: Lease,
    params: P,
    private readonly deps: ContextDeps,
  ) {
    const job = lease.job;
    this.job = {
      id: job.id,
      tenantId: job.tenantId,
      // The worker only builds a context for a type it found in JOB_TYPES.
      type: job.type as JobType,
      queue: job.queue,
      priority: job.priority,
      attempt: job.attempt,
      maxAttempts: job.maxAttempts,
      createdAt: job.createdAt,
      params,
    };
    this.attempt = job.attempt;
  }

  get worker(): JobContext<P>["worker"] {
    return { id: this.deps.workerId, allowProcessKill: this.deps.allowProcessKill };
  }

  get signal() {
    return this.lease.signal;
  }

  get checkpoint() {
    return (this.cp ??= () => checkpoint(this.lease, this.deps));
  }

  /** Made on first use and callable when destructured, like `checkpoint`. */
  get progress() {
    return (this.pr ??= (done: number, total = 100) => setProgress(this.lease, done, total));
  }

  get log() {
    return withFields(this.deps.log, { jobId: this.job.id, type: this.job.type, attempt: this.attempt });
  }
}

export function createContext<P>(lease: Lease, params: P, deps: ContextDeps): JobContext<P> {
  return new Context(lease, params, deps);
}

/**
 * How far the handler is: `done` of `total` (a percentage by default). It only records the value: the
 * worker's next heartbeat writes the latest, so a handler may call it for every item it processes.
 */
function setProgress(lease: Lease, done: number, total: number) {
  if (
    typeof done !== "number" ||
    typeof total !== "number" ||
    !Number.isFinite(done) ||
    !Number.isFinite(total) ||
    total <= 0 ||
    done < 0 ||
    done > total
  ) {
    throw new RangeError(`ctx.progress(${String(done)}, ${String(total)}): expected 0 ≤ done ≤ total and total > 0, finite numbers`);
  }
  lease.setProgress(done, total);
}

async function checkpoint(lease: Lease, deps: ContextDeps): Promise<void> {
  try {
    for (;;) {
      if (lease.signal.aborted) throw lease.signal.reason;
      if (Date.now() - Math.max(lease.knownAt, lease.checkedAt) > CHECKPOINT_FRESHNESS_MS) {
        await deps.refresh(lease);
        if (lease.signal.aborted) throw lease.signal.reason;
      }
      if (lease.state === "cancelling") throw new JobCancelled(lease.id);
      if (lease.state !== "paused") return;
      // Paused: hold here. Heartbeats (or our own refresh once this knowledge
      // is stale) tell us when an operator resumes or cancels.
      lease.heldAtCheckpoint = true;
      await lease.waitForChange(CHECKPOINT_FRESHNESS_MS);
    }
  } finally {
    lease.heldAtCheckpoint = false;
  }
}
