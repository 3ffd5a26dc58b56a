import type { Db } from "../db/client";
import { workerRound } from "./round";
import type { Move, Moved } from "./write";

/**
 * One worker report in a batch: what `transition()` would get from a worker (event, attempt,
 * the state and version it last saw).
 */
export type BatchItem = Move & { attempt: number };

/**
 * The worker's own reports (`start`, `finish`, `fail`, `abandon`, `stop`, `release`) of many jobs in
 * ONE statement: the guarded write (lib/jobs/write.ts), each row guarded by expected state and
 * version, attempt and lease owner. Returns one entry per input, in input order: the job's state
 * after the move, or `null` for a move that lost its guard or that the table refuses. The caller
 * sends each loser through `transition()`, which reads the row, classifies and records the refusal.
 */
export async function applyWorkerBatch(sql: Db, workerId: string, items: readonly BatchItem[]): Promise<(Moved | null)[]> {
  return (await workerRound(sql, workerId, items, null)).reports;
}

/**
 * Collects items and flushes them together. With `delayMs` 0 (group commit): the first item
 * flushes at once (with whatever arrived in the same tick), and items that arrive while a flush is
 * in flight wait for it and go together in the next — batches grow with the load, an idle caller
 * pays no delay. With `delayMs` > 0: a flush `delayMs` after the first waiting item. Either way a
 * flush starts at once when `maxSize` items wait. Each `add` resolves with its own slot of the
 * flush's answer; a flush that throws rejects every item in it.
 */
export class Batcher<I, O> {
  private pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private scheduled = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly flushFn: (items: I[]) => Promise<O[]>,
    private readonly opts: { delayMs: number; maxSize: number },
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.opts.maxSize) this.flush();
      else if (this.opts.delayMs > 0) this.timer ??= setTimeout(() => this.flush(), this.opts.delayMs);
      else if (!this.scheduled && this.inFlight.size === 0) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          if (this.inFlight.size === 0) this.flush();
        });
      }
    });
  }

  /** Send what is waiting now; resolves when every flush started so far has ended. */
  async drain(): Promise<void> {
    this.flush();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const p = this.flushFn(batch.map((b) => b.item)).then(
      (outs) => batch.forEach((b, i) => b.resolve(outs[i] as O)),
      (e: unknown) => batch.forEach((b) => b.reject(e)),
    );
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      // Group commit: what arrived during this flush goes next, together.
      if (this.opts.delayMs === 0 && this.inFlight.size === 0 && this.pending.length > 0) this.flush();
    });
  }
}
