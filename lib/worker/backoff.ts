export type BackoffOptions = {
  /** The delay after the first failed attempt. */
  baseMs: number;
  /** No delay is longer than this. */
  capMs: number;
  /**
   * Fraction of the delay that is randomised (0..1): the delay is drawn from
   * [d·(1−jitter), d]. Jitter spreads the retries of jobs that failed together
   * (an upstream outage) so they do not all come back in the same second.
   */
  jitter: number;
};

export const DEFAULT_RETRY: BackoffOptions = { baseMs: 2_000, capMs: 10 * 60_000, jitter: 0.25 };

/** Exponential backoff: base · 2^(attempt−1), capped, with jitter. `attempt` starts at 1. */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const exp = Math.max(0, attempt - 1);
  // 2^exp overflows to Infinity long before it matters; min() keeps it finite.
  const raw = Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(exp, 52));
  const jitter = Math.min(1, Math.max(0, opts.jitter));
  return Math.round(raw * (1 - jitter * random()));
}

export function retryAt(attempt: number, opts: BackoffOptions, now = Date.now()): Date {
  return new Date(now + backoffDelay(attempt, opts));
}

/** The worker's own backoff after database errors: quick at first, never over 30s. */
export const DB_RETRY: BackoffOptions = { baseMs: 250, capMs: 30_000, jitter: 0.5 };
