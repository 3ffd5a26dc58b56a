import type { Db } from "../db/client";

/**
 * Poison jobs: a job whose handler kills the worker process running it (a native crash, an OOM
 * kill) never reports; its lease expires and the supervisor reclaims it, and the next worker to
 * claim it dies too. Workers are shared by every tenant, so one such job would keep taking other
 * tenants' jobs down with it. The policy: when the supervisor finds a stale lease whose job has
 * already lost POISON_LEASE_LOSSES - 1 attempts to expired leases, it does not hand the job out
 * again — it abandons it (`dead`, through the normal guarded transition), with the run's error
 * class `PoisonJob` and a message that says why. An operator replays it once the handler is fixed.
 *
 * Three by default (JOBSCOPE_POISON_LEASE_LOSSES): a rolling restart or a lost machine can cost a
 * long job one attempt, rarely two in a row; a handler that crashes its process loses every one.
 * The overview flags a job as a suspect from its second loss (lib/insight/windows.ts), before it is stopped.
 */
export const POISON_LEASE_LOSSES = leaseLossesFromEnv();

function leaseLossesFromEnv(): number {
  const v = Number(process.env.JOBSCOPE_POISON_LEASE_LOSSES ?? 3);
  return Number.isInteger(v) && v >= 1 ? v : 3;
}

export const POISON_ERROR_CLASS = "PoisonJob";

/** Would expiring this lease make `earlierLosses + 1` losses, reaching the threshold? */
export const isPoison = (earlierLosses: number, threshold = POISON_LEASE_LOSSES) => earlierLosses + 1 >= threshold;

/** The run error the supervisor records when it stops a poison job. */
export const poisonError = (losses: number, staleAfterMs: number) => ({
  class: POISON_ERROR_CLASS,
  message:
    `no heartbeat for more than ${staleAfterMs} ms, the ${ordinal(losses)} attempt of this job to lose its worker: ` +
    "its handler is presumed to crash the worker process, so it is not handed out again. Replay it once the handler is fixed.",
});

const ordinal = (n: number) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

/** How many attempts of each job ended with an expired lease (the jobs the supervisor is about to recover). */
export async function leaseLosses(sql: Db, jobIds: readonly string[]): Promise<Map<string, number>> {
  if (jobIds.length === 0) return new Map();
  const rows = await sql<{ jobId: string; losses: number }[]>`
    SELECT job_id, count(*)::int AS losses FROM job_runs
     WHERE job_id = ANY(${jobIds}::uuid[]) AND outcome = 'lease_expired'
     GROUP BY job_id`;
  return new Map(rows.map((r) => [r.jobId, r.losses]));
}
