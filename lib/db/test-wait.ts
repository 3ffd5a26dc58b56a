// How tests wait: for a condition, with a deadline. A fixed sleep is either too short on a loaded
// machine (a flaky test) or too long everywhere else (a slow one).
import type { Db } from "./client";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

/** Poll `fn` until it returns something truthy, and return that; fail after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T> | T, timeoutMs = 15_000): Promise<Exclude<T, null | undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as Exclude<T, null | undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Until at least `count` sessions of this database wait on a lock (those of `appName` only, when
 * given): the way a race test knows its second writer is queued behind the row it holds.
 */
export function waitForLockWaiters(db: Db, count: number, appName?: string): Promise<number> {
  return waitFor(`${count} session(s) waiting on a lock`, async () => {
    const [r] = await execute<{ n: number }>(
      db,
      sql`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'
         AND (${appName ?? null}::text IS NULL OR application_name = ${appName ?? null}::text)`,
    );
    return (r?.n ?? 0) >= count ? r!.n : 0;
  });
}

/**
 * Until the database's clock, to the millisecond, has passed every row written so far. A window
 * that ends at `now()` read into a JavaScript Date (millisecond precision) then takes them in: a
 * row written in the same millisecond as the read would fall after it, and into the next window.
 */
export async function waitForNextMillisecond(db: Db): Promise<void> {
  const [r] = await execute<{ at: string }>(db, sql`SELECT clock_timestamp()::text AS at`);
  await waitFor("the database clock's next millisecond", async () => {
    const [x] = await execute<{ past: boolean }>(db, sql`SELECT date_trunc('milliseconds', clock_timestamp()) > ${r!.at}::timestamptz AS past`);
    return x?.past;
  });
}
