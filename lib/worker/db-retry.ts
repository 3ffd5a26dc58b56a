import { backoffDelay, DB_RETRY } from "./backoff";
import { errorFields } from "./log";
import type { Logger } from "./types";
import { sleep } from "./wakeup";

/**
 * Run a database call, retrying thrown errors (a dropped connection, a
 * restarting server) with backoff. A refusal from the write path is a value,
 * not a throw, so it is never retried here. Returns whether a retry happened:
 * a write whose commit was acknowledged on a connection that then dropped may
 * have applied, and the caller can recognise its own write in the refusal.
 */
export async function withDbRetry<T>(
  what: string,
  fn: () => Promise<T>,
  opts: { log: Logger; tries?: number; signal?: AbortSignal | (() => AbortSignal) },
): Promise<{ value: T; retried: boolean }> {
  const tries = opts.tries ?? 5;
  for (let i = 1; ; i++) {
    try {
      return { value: await fn(), retried: i > 1 };
    } catch (e) {
      // A function: the signal is made only when a retry needs it (a lease makes its signal lazily).
      const signal = typeof opts.signal === "function" ? opts.signal() : opts.signal;
      if (i >= tries || signal?.aborted) throw e;
      const delay = backoffDelay(i, DB_RETRY);
      opts.log.warn(`${what} failed; retrying in ${delay}ms`, { ...errorFields(e), try: i });
      await sleep(delay, signal);
    }
  }
}
