import { performance } from "node:perf_hooks";
import type { Db } from "../db/client";
import type { Lanes } from "../db/lanes";
import type { ClaimOptions } from "../jobs/claim";
import type { BatchItem } from "../jobs/complete";
import { workerRound, type Applied } from "../jobs/round";
import type { ClaimedJob } from "../jobs/types";
import type { Reporter } from "./report";

/** A report waiting for its round, and who hears how it went: the job it moved, null (it did not apply), or the round's error. */
type Pending = { item: BatchItem; done: (moved: Applied | null, failed?: { error: unknown }) => void };

export type RoundsOptions = {
  db: Db;
  /** Send the rounds on these pipelined connections rather than one pool connection each (an unbatched worker's). */
  lanes?: Lanes;
  workerId: string;
  queues: readonly string[];
  /** Statements in flight at once. */
  pipelines: number;
  /**
   * Of those, how many may carry a claim. Each claim reads the claim index before its statement's
   * reports are written (lib/jobs/round.ts), so claims in flight side by side do not lock each
   * other's jobs (docs/decisions.md, "Claims in flight").
   */
  claimPipelines: number;
  /** Most reports, and most claims, in one statement. */
  maxBatch: number;
  /** How many jobs to claim now, given the claims in flight (0: none). */
  wanted: (inFlight: number) => number;
  /** The jobs a round claimed, and how long the round took (ms). */
  onClaimed: (jobs: ClaimedJob[], roundMs: number) => void;
  onClaimError: (e: unknown) => void;
};

/**
 * The worker's hot loop: up to `pipelines` statements in flight, each carrying every report that
 * waits (up to `maxBatch`) and a claim for what the worker wants next. A round is sent as soon as a
 * pipeline is free and there is something to send, so batches grow with the load and a lone job
 * waits for nothing (group commit); no timer, no per-job promise chain beyond the report's own.
 */
export class Rounds implements Reporter {
  private outbox: Pending[] = [];
  private inFlight = 0;
  private claimsInFlight = 0;
  private claimRounds = 0;
  /**
   * A queue of the worker's has a cap, as its last claim read: claims count slots then; otherwise
   * an unbatched worker's are lean (ClaimOptions `lean`) until a claim says otherwise. A batched
   * worker's are always full: with lean ones, two worker processes after a heavy load read 0.70–0.74×
   * of one against 0.99× (docs/decisions.md, "A claim counts slots only where a queue is capped").
   */
  private capped = false;
  /** The queue may have due jobs: set by a NOTIFY or the poll, cleared by a claim that came back short. */
  private mayHaveWork = true;
  private wakeEpoch = 0;
  private idle: (() => void)[] = [];
  private stopped = false;
  /** Counters for the worker's metrics: statements sent, reports carried, jobs claimed. */
  readonly stats = { rounds: 0, reports: 0, claimed: 0 };

  constructor(private readonly o: RoundsOptions) {}

  add(item: BatchItem): Promise<Applied | null> {
    return new Promise((resolve, reject) => this.push(item, (moved, failed) => (failed ? reject(failed.error) : resolve(moved))));
  }

  /** `add` without a promise: `done` is called once the round that carried the report is answered. */
  push(item: BatchItem, done: Pending["done"]) {
    this.outbox.push({ item, done });
    this.soon();
  }

  /** A NOTIFY, the poll or a freed slot: claim again. */
  wake() {
    this.wakeEpoch++;
    this.mayHaveWork = true;
    this.soon();
  }

  private scheduled = false;

  /**
   * Kick after the current turn of the event loop: the handlers that end in the same turn (a
   * claim's worth of fast ones) go out in one round, and a lone job's report waits for nothing.
   */
  soon() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.kick();
    });
  }

  /** No more claims (draining); reports still go out. */
  stopClaiming() {
    this.stopped = true;
  }

  get claiming(): number {
    return this.claimsInFlight;
  }

  /** Resolves when nothing is in flight and no report waits. */
  settled(): Promise<void> {
    if (this.inFlight === 0 && this.outbox.length === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  kick() {
    while (this.inFlight < this.o.pipelines) {
      const want =
        !this.stopped && this.mayHaveWork && this.claimRounds < this.o.claimPipelines
          ? Math.min(this.o.maxBatch, this.o.wanted(this.claimsInFlight))
          : 0;
      if (this.outbox.length === 0 && want <= 0) break;
      const reports = this.outbox.length <= this.o.maxBatch ? this.outbox : this.outbox.slice(0, this.o.maxBatch);
      this.outbox = reports === this.outbox ? [] : this.outbox.slice(this.o.maxBatch);
      this.send(reports, want);
    }
  }

  private send(reports: Pending[], want: number) {
    this.stats.rounds++;
    this.stats.reports += reports.length;
    this.inFlight++;
    this.claimsInFlight += want;
    if (want > 0) this.claimRounds++;
    const epoch = this.wakeEpoch;
    const t0 = performance.now();
    const lean = this.o.maxBatch === 1 && !this.capped;
    const claim: ClaimOptions | null = want > 0 ? { workerId: this.o.workerId, queues: this.o.queues, limit: want, startNow: want, lean } : null;
    const lane = this.o.lanes?.pick();
    workerRound(
      lane?.db ?? this.o.db,
      this.o.workerId,
      reports.map((p) => p.item),
      claim,
      this.o.maxBatch === 1,
    )
      .then(
        (r) => {
          lane?.done();
          for (let i = 0; i < reports.length; i++) reports[i]!.done(r.reports[i] ?? null);
          if (want > 0) {
            // A lean claim sent before a full one may come back after it: only a full claim says "no cap".
            if (r.capped) this.capped = true;
            else if (!lean) this.capped = false;
            // A short claim: the queue is (for now) empty, unless a NOTIFY came in the meantime or a
            // lean claim passed over a capped queue (the next claim, a full one, reads it).
            if (r.claimed.length < want && epoch === this.wakeEpoch && !(lean && r.capped)) this.mayHaveWork = false;
            this.stats.claimed += r.claimed.length;
            if (r.claimed.length > 0) this.o.onClaimed(r.claimed, performance.now() - t0);
          }
        },
        (e: unknown) => {
          lane?.done(e);
          for (const p of reports) p.done(null, { error: e });
          if (want > 0) this.o.onClaimError(e);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.claimsInFlight -= want;
        if (want > 0) this.claimRounds--;
        // Batched: after the turn, once the handlers of the jobs this round claimed have ended, so that
        // their reports go out together. Kicked at once, the freed pipeline carried the few that had
        // ended by then (48 of 500), and every other round was a small one (docs/decisions.md,
        // "Claims in flight"). One job per statement: nothing to gather, and the next goes at once.
        if (this.o.maxBatch > 1) this.soon();
        else this.kick();
        if (this.inFlight === 0 && this.outbox.length === 0) for (const r of this.idle.splice(0)) r();
      });
  }
}
