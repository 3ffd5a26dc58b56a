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
 *   POISON_CRASHES stops it: `dead` as `PoisonJob`, not handed out again. Before that it is handed
 *   out again after a backoff (crashBackoffMs), behind its bystanders.
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

/**
 * How long the job blamed for a crash waits before it is handed out again: `baseMs` (the supervisor's
 * stale threshold by default), doubling with each crash blamed on it. Its bystanders go back at once,
 * ahead of it, so the next worker it lands on is not the bystanders' again: when all of them started
 * at the same instant (one claim) the blame is a guess, and a crasher that came back with the same
 * company would have the same deaths as each of them — with the blame already taken by a bystander
 * deciding the next tie too, until that bystander was the poison job. Apart, the crasher's next
 * crash is its own: one more death than anything it meets. No jitter: the model (lib/model) mirrors it.
 */
export function crashBackoffMs(crashes: number, baseMs: number): number {
  return Math.min(CRASH_BACKOFF_CAP_MS, baseMs * 2 ** Math.min(Math.max(0, crashes - 1), 20));
}
const CRASH_BACKOFF_CAP_MS = 10 * 60_000;

/** Until when the supervisor held back the job blamed for a crash, from its `reclaim`'s payload (`crash.heldUntil`), epoch ms. */
export function heldUntilOf(payload: Record<string, unknown> | null | undefined): number | null {
  const v = (payload?.crash as { heldUntil?: unknown } | undefined)?.heldUntil;
  return typeof v === "string" ? Date.parse(v) : null;
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
 * How long after its first victims were recovered a worker's death can still take others down: the
 * leases of one dead process expire together and are recovered within a tick or a few, but a worker
 * started again with the same fixed id (`--id`) is another process, whose later death is its own.
 */
export const CRASH_WINDOW_MS = 5 * 60_000;
