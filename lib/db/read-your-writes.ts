import type { Db } from "./client";
import { pool, readPool } from "./client";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

/**
 * Read-your-writes with a standby for the console's reads (DATABASE_READ_URL).
 *
 * A standby replays the primary's WAL a little behind it. After a person's own change (a server
 * action that wrote), the page they see next must not show the state from before it. So a
 * request that wrote remembers the primary's WAL position in a short-lived cookie, and a later
 * read goes to the standby only once the standby has replayed past that position; until then it
 * reads the primary. Reads with no recent write of theirs go to the standby with no extra check.
 * (The technique of GitLab's and Rails' database load balancers: "sticky" reads after a write.)
 */
export const LSN_COOKIE = "jobscope_lsn";
/** How long a write's position is kept: far longer than a healthy standby lags. */
const LSN_COOKIE_SECONDS = 60;
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/** The primary's current WAL position after a transaction that wrote (`txid_current_if_assigned()` was set). */
export async function primaryLsn(db: Db = pool()): Promise<string> {
  const [r] = await execute<{ lsn: string }>(db, sql`SELECT pg_current_wal_lsn()::text AS lsn`);
  return r!.lsn;
}

/** Whether the transaction `tx` has written anything (it has a transaction id). */
export async function wrote(tx: Db): Promise<boolean> {
  const [r] = await execute<{ wrote: boolean }>(tx, sql`SELECT txid_current_if_assigned() IS NOT NULL AS wrote`);
  return !!r?.wrote;
}

/**
 * Remember a write for this browser: called after a console transaction that wrote has
 * committed. Only server actions and route handlers may set cookies; elsewhere this does nothing
 * (a page render never writes).
 */
export async function rememberWrite(): Promise<void> {
  if (!process.env.DATABASE_READ_URL) return;
  const lsn = await primaryLsn();
  try {
    const { cookies } = await import("next/headers");
    (await cookies()).set(LSN_COOKIE, lsn, { httpOnly: true, sameSite: "lax", path: "/", maxAge: LSN_COOKIE_SECONDS });
  } catch {
    // Not in a request that may set cookies (a render, a script): nothing to remember.
  }
}

/** The WAL position of this browser's last write, if it is recent. */
async function lastWrite(): Promise<string | null> {
  try {
    const { cookies } = await import("next/headers");
    const v = (await cookies()).get(LSN_COOKIE)?.value;
    return v && LSN.test(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The pool a tolerant read goes to: the standby, unless this browser wrote recently and the
 * standby has not replayed that write yet (then the primary). `after` overrides the cookie (tests,
 * scripts).
 */
export async function readPoolAfter(after?: string | null): Promise<Db> {
  const replica = readPool();
  if (replica === pool()) return replica;
  const lsn = after === undefined ? await lastWrite() : after;
  if (!lsn) return replica;
  try {
    const [r] = await execute<{ caughtUp: boolean | null }>(replica, sql`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS caught_up`);
    return r?.caughtUp ? replica : pool();
  } catch {
    return pool();
  }
}
