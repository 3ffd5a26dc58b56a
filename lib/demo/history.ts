import type { Db } from "../db/client";
import type { JobEvent } from "../fsm/table";
import { claim } from "../jobs/claim";
import { enqueue, type EnqueueInput } from "../jobs/enqueue";
import { transition } from "../jobs/transition";
import type { Actor, JobRow, TransitionInput } from "../jobs/types";

export const SUPERVISOR: Actor = { kind: "supervisor", id: "sup-demo" };
export const OPERATOR: Actor = { kind: "operator", id: "ops@jobscope.dev" };

/**
 * Writes one job's past through the real write path with back-dated clocks,
 * so demo histories are made of the same events, runs and guards as live ones.
 */
export class History {
  private job!: JobRow;
  private worker = "";

  constructor(
    private db: Db,
    private t: number,
  ) {}

  /** Steps that commit together: a live supervisor acts on a back-dated row (a retry due long ago) between two that do not. */
  private async together<T>(steps: () => Promise<T>): Promise<T> {
    const db = this.db;
    try {
      return await db.transaction(async (tx) => {
        this.db = tx;
        return steps();
      });
    } finally {
      this.db = db;
    }
  }

  get id() {
    return this.job.id;
  }
  /** The history's clock: when its last step happened (ms since the epoch). */
  get at() {
    return this.t;
  }
  get attemptsLeft() {
    return this.job.maxAttempts - this.job.attempt;
  }

  async submit(input: EnqueueInput, actor: Actor) {
    this.job = (await enqueue(this.db, input, actor, { at: new Date(this.t) })).job;
    return this;
  }

  /** Wait `waitMs`, then worker `w` claims the job. */
  async claim(w: string, waitMs: number) {
    this.t += waitMs;
    const at = new Date(this.t);
    // The claim skips locked rows, and another transaction can hold this one for a moment: a live
    // supervisor's sweep that found it changed under its UPDATE keeps the row's lock until it commits.
    // So a miss is tried again for a while before it counts as one.
    let c: Awaited<ReturnType<typeof claim>>[number] | undefined;
    for (let tries = 0; !c && tries < 40; tries++) {
      if (tries > 0) await new Promise((r) => setTimeout(r, 50));
      [c] = await claim(this.db, { workerId: w, queues: [this.job.queue], limit: 1, onlyJobIds: [this.job.id], at });
    }
    if (!c) throw new Error(`demo: could not claim ${this.job.id}`);
    this.job = { ...this.job, ...c };
    this.worker = w;
    return this;
  }

  /** Wait `afterMs`, then apply `event`; a worker's events name its attempt. */
  async step(event: JobEvent, afterMs: number, actor?: Actor, extra: Partial<TransitionInput> = {}) {
    this.t += afterMs;
    const who = actor ?? { kind: "worker", id: this.worker };
    const r = await transition(this.db, {
      jobId: this.job.id,
      event,
      actor: who,
      attempt: who.kind === "worker" ? this.job.attempt : undefined,
      at: new Date(this.t),
      ...extra,
    });
    if (!r.ok) throw new Error(`demo: ${event} on ${this.job.id} refused: ${r.reason}`);
    this.job = r.job;
    return this;
  }

  async run(w: string, waitMs: number, startMs = 300) {
    await this.claim(w, waitMs);
    return this.step("start", startMs);
  }

  /** The attempt fails; unless `wait`, the supervisor promotes the retry once the backoff has passed. */
  async fail(afterMs: number, error: { class: string; message: string }, backoffMs: number, wait = false) {
    const fail = () => this.step("fail", afterMs, undefined, { error, retryAt: new Date(this.t + afterMs + backoffMs) });
    if (wait) return fail();
    return this.together(async () => (await fail()).step("retry", backoffMs + 400, SUPERVISOR));
  }

  /** The worker stops heart-beating; the supervisor notices after `staleMs`. */
  async loseLease(afterMs: number, staleMs = 30_000) {
    const event = this.job.attempt < this.job.maxAttempts ? "reclaim" : "abandon";
    return this.step(event, afterMs + staleMs, SUPERVISOR, {
      error: { class: "LeaseExpired", message: `no heartbeat for more than ${staleMs} ms` },
    });
  }
}
