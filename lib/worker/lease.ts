import type { JobState } from "../fsm/table";
import type { ClaimedJob } from "../jobs/types";
import type { InFlightInfo } from "./types";

/**
 * What a worker knows about one job it holds: the state it last learned (from
 * its own transitions and from heartbeats) and whether the lease is still its.
 * The handler's AbortSignal belongs here, so losing the lease aborts it.
 */
export class Lease {
  state: JobState;
  stateVersion: number;
  /** When the state was last confirmed by the database (ms since epoch). */
  knownAt = Date.now();
  /** When `checkpoint()` last asked the database, successfully or not. */
  checkedAt = 0;
  lost = false;
  heldAtCheckpoint = false;
  /** How long the handler ran (ms), once it has; -1 before. */
  handlerMs = -1;
  /** The handler's slot was given back (lib/worker/run-job.ts). */
  handlerReleased = false;
  /** The handler's last `ctx.progress()`; `progressDirty` until a heartbeat has written it. */
  progress: { done: number; total: number } | null = null;
  progressDirty = false;
  readonly startedAt = Date.now();
  // Created on first use: most handlers never look at their signal, and a lease is made per job.
  private controller: AbortController | null = null;
  private lostReason: Error | null = null;
  private listeners: Set<() => void> | null = null;

  constructor(readonly job: ClaimedJob) {
    this.state = job.state;
    this.stateVersion = job.stateVersion;
  }

  get id() {
    return this.job.id;
  }
  get attempt() {
    return this.job.attempt;
  }
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.lostReason) this.controller.abort(this.lostReason);
    }
    return this.controller.signal;
  }

  /** Why the lease was lost (the signal's reason), or null. */
  get lossReason(): Error | null {
    return this.lostReason;
  }

  /**
   * Record the state the database reported. A heartbeat sent before one of our
   * own transitions may answer after it; the version keeps us from going back.
   */
  learn(state: JobState, stateVersion: number) {
    this.knownAt = Date.now();
    if (stateVersion < this.stateVersion) return;
    const changed = state !== this.state;
    this.state = state;
    this.stateVersion = stateVersion;
    if (changed) this.notify();
  }

  /** The lease is gone: abort the handler and never report for this attempt. */
  lose(reason: Error) {
    if (this.lost) return;
    this.lost = true;
    this.lostReason = reason;
    this.controller?.abort(reason);
    this.notify();
  }

  /** Record the handler's progress; the next heartbeat writes it (at most once per heartbeat, whatever the rate of calls). */
  setProgress(done: number, total: number) {
    this.progress = { done, total };
    this.progressDirty = true;
  }

  /** Resolves when the state changes, the lease is lost, or after `timeoutMs`. */
  waitForChange(timeoutMs: number): Promise<void> {
    if (this.lost) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      (this.listeners ??= new Set()).add(done);
    });
  }

  info(): InFlightInfo {
    return {
      jobId: this.id,
      type: this.job.type,
      attempt: this.attempt,
      state: this.state,
      heldAtCheckpoint: this.heldAtCheckpoint,
      lost: this.lost,
    };
  }

  private notify() {
    if (this.listeners) for (const l of [...this.listeners]) l();
  }
}
