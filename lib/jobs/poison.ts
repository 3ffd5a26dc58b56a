import type { Db } from "../db/client";

/**
 * Poison jobs and the jobs they take down with them.
 *
 * A job whose handler kills the worker process running it (a native crash, an OOM kill) never
 * reports: its lease expires, and so do the leases of every other job that process was running.
 * Those others are bystanders. The supervisor therefore blames ONE job for each worker process that
 * died — the repeat offender — and treats the rest as bystanders:
 * - the blamed job: the one of the dead worker's jobs with the most *unexplained* deaths — the dead
 *   workers it has been on (this one included), less those a repeat offender explains (a death it
 *   was a bystander of, blamed on a job that has crashed REPEAT_CRASHES workers or more); on a tie,
 *   the one that started last (the process was healthy until it started), then the lowest id. Its
 *   lost attempt counts as a crash (error class `LeaseExpired`), and the crash that makes
 *   POISON_CRASHES stops it: `dead` as `PoisonJob`, not handed out again.
 * - the bystanders: handed back with their attempt refunded (the `rescue` transition, error class
 *   `WorkerLost`, the blamed job named in its event's payload).
 * Deaths count before start times so that a job that kills its worker slowly (a leak, a big input),
 * after others started, is found once it has been on more deaths than they have; explained deaths
 * do not count, so a long job that was a bystander of one crasher is not blamed for the first kill
 * of the next.
 *
 * Three crashes by default (JOBSCOPE_POISON_CRASHES): a rolling restart or a lost machine can cost
 * a long job a crash, rarely two in a row; a handler that crashes its process is blamed every time.
 */
export const POISON_CRASHES = crashesFromEnv();

function crashesFromEnv(): number {
  const v = Number(process.env.JOBSCOPE_POISON_CRASHES ?? process.env.JOBSCOPE_POISON_LEASE_LOSSES ?? 3);
  return Number.isInteger(v) && v >= 1 ? v : 3;
}

/** A job blamed for this many worker crashes is a repeat offender: it explains the deaths it was blamed for. */
export const REPEAT_CRASHES = 2;

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
  /** Dead workers this job has been on, this one included, less the deaths a repeat offender explains. */
  deaths: number;
  /** Worker deaths it was blamed for before this one. */
  crashes: number;
  /** Whether it was already blamed (a recovered attempt whose class is not WorkerLost). */
  blamed: boolean;
};

/**
 * Whether `a` is the likelier crasher than `b`: more unexplained deaths; then more crashes it was
 * already blamed for (the jobs one claim hands out start at the same instant, so a crasher that
 * comes back in a batch with the bystanders of its last crash must not lose to the lowest id); then
 * the later start (the process died soon after the crasher began); then the lower id.
 */
export function outranks(
  a: Pick<Victim, "jobId" | "deaths" | "crashes" | "startedAt">,
  b: Pick<Victim, "jobId" | "deaths" | "crashes" | "startedAt">,
): boolean {
  if (a.deaths !== b.deaths) return a.deaths > b.deaths;
  if (a.crashes !== b.crashes) return a.crashes > b.crashes;
  if (a.startedAt !== b.startedAt) return a.startedAt > b.startedAt;
  return a.jobId < b.jobId;
}

/** The job blamed for one worker's death, among the jobs it took down (see above). */
export function blameOf(victims: readonly Victim[]): Victim | null {
  const already = victims.find((v) => v.blamed);
  if (already) return already;
  let best: Victim | null = null;
  for (const v of victims) {
    if (!best || outranks(v, best)) best = v;
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

const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

/**
 * Per job: the crashes blamed on it, and the dead workers it has been on that no repeat offender
 * explains (each lost attempt, less those it lost as a bystander of a job blamed for REPEAT_CRASHES
 * or more). The bystander's recovery event names whom its worker's death was blamed on
 * (job_attempts_pkey, job_log_job_version_idx).
 */
export async function crashHistory(sql: Db, jobIds: readonly string[]): Promise<Map<string, { deaths: number; crashes: number }>> {
  if (jobIds.length === 0) return new Map();
  const rows = await sql<{ jobId: string; deaths: number; crashes: number }[]>`
    WITH lost AS (
      SELECT a.job_id, a.error_class,
             CASE WHEN a.error_class = ${WORKER_LOST_CLASS} THEN
               (SELECT (e.payload->'crash'->'blamed'->>'jobId')::uuid FROM job_log e
                 WHERE e.job_id = a.job_id AND e.attempt = a.attempt AND e.actor_kind = 'supervisor' AND e.at >= a.claimed_at
                 ORDER BY e.state_version DESC LIMIT 1) END AS blamed_on
        FROM job_attempts a WHERE a.job_id = ANY(${jobIds}::uuid[]) AND a.outcome = 'lease_expired'),
    offenders AS (
      SELECT b.job_id FROM job_attempts b
       WHERE b.job_id IN (SELECT blamed_on FROM lost WHERE blamed_on IS NOT NULL) AND b.outcome = 'lease_expired'
         AND b.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}
       GROUP BY b.job_id HAVING count(*) >= ${REPEAT_CRASHES})
    SELECT job_id, count(*) FILTER (WHERE blamed_on IS NULL OR blamed_on NOT IN (SELECT job_id FROM offenders))::int AS deaths,
           count(*) FILTER (WHERE error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})::int AS crashes
      FROM lost GROUP BY job_id`;
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
