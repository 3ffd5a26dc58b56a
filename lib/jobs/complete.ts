import type { Db } from "../db/client";
import { workerRound, type Applied } from "./round";
import type { Move } from "./write";

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
export async function applyWorkerBatch(db: Db, workerId: string, items: readonly BatchItem[]): Promise<(Applied | null)[]> {
  return (await workerRound(db, workerId, items, null)).reports;
}
