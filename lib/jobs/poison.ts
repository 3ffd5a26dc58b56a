import type { Db } from "../db/client";

/**
 * Poison jobs and the jobs they take down with them.
 *
 * A job whose handler kills the worker process running it (a native crash, an OOM kill) never
 * reports: its lease expires, and so do the leases of every other job that process was running.
 * Those others are bystanders. The supervisor therefore blames ONE job for each worker process that
 * died — the repeat offender — and treats the rest as bystanders:
 * - the blamed job: the one of the dead worker's jobs that has been on the most dead workers (this
 *   one included); on a tie, the one that started last (the process was healthy until it started),
 *   then the lowest id. Its lost attempt counts as a crash (error class `LeaseExpired`), and the
 *   crash that makes POISON_CRASHES stops it: `dead` as `PoisonJob`, not handed out again.
 * - the bystanders: handed back with their attempt refunded (the `rescue` transition, error class
 *   `WorkerLost`, the blamed job named in its event's payload). A bystander that keeps dying beside
 *   others ends up on more dead workers than they have, and is then the one blamed.
 *
 * Three crashes by default (JOBSCOPE_POISON_CRASHES): a rolling restart or a lost machine can cost
 * a long job a crash, rarely two in a row; a handler that crashes its process is blamed every time.
 */
export const POISON_CRASHES = crashesFromEnv();

function crashesFromEnv(): number {
  const v = Number(process.env.JOBSCOPE_POISON_CRASHES ?? process.env.JOBSCOPE_POISON_LEASE_LOSSES ?? 3);
  return Number.isInteger(v) && v >= 1 ? v : 3;
}

export const POISON_ERROR_CLASS = "PoisonJob";
/** A bystander's lost attempt: its worker died, and another job was blamed for it. */
export const WORKER_LOST_CLASS = "WorkerLost";
export const LEASE_EXPIRED_CLASS = "LeaseExpired";

/** One job a dead worker took down: an attempt already recovered, or a lease the supervisor is about to recover. */
export type Victim = {
  jobId: string;
  type: string;
  /** When the attempt started (or was claimed, if it never started), epoch ms. */
  startedAt: number;
  /** Dead workers this job has been on, this one included. */
  deaths: number;
  /** Whether it was already blamed (a recovered attempt whose class is not WorkerLost). */
  blamed: boolean;
};

/** The job blamed for one worker's death, among the jobs it took down (see above). */
export function blameOf(victims: readonly Victim[]): Victim | null {
  const already = victims.find((v) => v.blamed);
  if (already) return already;
  let best: Victim | null = null;
  for (const v of victims) {
    if (
      !best ||
      v.deaths > best.deaths ||
      (v.deaths === best.deaths && (v.startedAt > best.startedAt || (v.startedAt === best.startedAt && v.jobId < best.jobId)))
    ) {
      best = v;
    }
  }
  return best;
}

/** The run error of the blamed job's lost attempt: a plain expired lease, or the crash that makes it poison. */
export function crashError(crashes: number, staleAfterMs: number, poison: boolean): { class: string; message: string } {
  if (poison) {
    return {
      class: POISON_ERROR_CLASS,
      message:
        `no heartbeat for more than ${staleAfterMs} ms: the ${ordinal(crashes)} worker this job was blamed for crashing. ` +
        "Its handler is presumed to crash the worker process, so it is not handed out again. Replay it once the handler is fixed.",
    };
  }
  return { class: LEASE_EXPIRED_CLASS, message: `no heartbeat for more than ${staleAfterMs} ms` };
}

/** The run error of a bystander's lost attempt. */
export function bystanderError(worker: string, blamed: Victim, refunded: boolean): { class: string; message: string } {
  return {
    class: WORKER_LOST_CLASS,
    message:
      `worker ${worker} died while running it; the crash is blamed on job ${blamed.jobId} (${blamed.type})` +
      (refunded ? ", so this attempt does not count against its attempts." : "."),
  };
}

const ordinal = (n: number) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

/** Per job: the dead workers it has been on (its lost leases) and the crashes blamed on it. */
export async function crashHistory(sql: Db, jobIds: readonly string[]): Promise<Map<string, { deaths: number; crashes: number }>> {
  if (jobIds.length === 0) return new Map();
  const rows = await sql<{ jobId: string; deaths: number; crashes: number }[]>`
    SELECT job_id, count(*)::int AS deaths, count(*) FILTER (WHERE error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})::int AS crashes
      FROM job_attempts
     WHERE job_id = ANY(${jobIds}::uuid[]) AND outcome = 'lease_expired'
     GROUP BY job_id`;
  return new Map(rows.map((r) => [r.jobId, { deaths: r.deaths, crashes: r.crashes }]));
}

/**
 * How long after its first victims were recovered a worker's death can still take others down: the
 * leases of one dead process expire together and are recovered within a tick or a few, but a worker
 * started again with the same fixed id (`--id`) is another process, whose later death is its own.
 */
export const CRASH_WINDOW_MS = 5 * 60_000;

/**
 * The attempts already recovered, in the last CRASH_WINDOW_MS, of jobs that `workers` took down
 * (job_attempts_worker_trouble_idx: worker_id, finished_at DESC).
 */
export async function earlierVictims(
  sql: Db,
  workers: readonly string[],
): Promise<{ workerId: string; jobId: string; type: string; startedAt: Date; errorClass: string | null }[]> {
  if (workers.length === 0) return [];
  return sql`
    SELECT a.worker_id, a.job_id, c.type, coalesce(a.started_at, a.claimed_at) AS started_at, a.error_class
      FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id
     WHERE a.worker_id = ANY(${workers}::text[]) AND a.outcome <> 'succeeded' AND a.outcome = 'lease_expired'
       AND a.finished_at >= now() - ${CRASH_WINDOW_MS} * interval '1 millisecond'`;
}
