import type { Db } from "./client";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

/**
 * job_log (the transitions no worker applied; until drizzle/0012 job_events, every
 * transition) is partitioned by `at` (drizzle/0009_partition_events.sql): one
 * partition per UTC day, `job_log_pYYYYMMDD`, months for data older than 0009
 * (`job_log_pYYYYMM`), and `job_log_default` for anything no partition covers.
 * The SQL functions kept their names (jobscope_event_partitions,
 * jobscope_ensure_event_partitions), and so do these.
 */
export type EventPartition = {
  name: string;
  /** Inclusive lower bound; null for the DEFAULT partition. */
  from: Date | null;
  /** Exclusive upper bound; null for the DEFAULT partition. */
  to: Date | null;
  isDefault: boolean;
  /** The planner's estimate (pg_class.reltuples); null before the partition was first analyzed. */
  estimatedRows: number | null;
};

/** How far ahead the supervisor keeps days created (docs/operations.md, "Retention"). */
export const PARTITION_DAYS_AHEAD = 7;

/**
 * Create the missing daily partitions from (UTC) today - daysBack to today + daysAhead;
 * returns how many were created. Idempotent. Rows of such a day already in DEFAULT move
 * into the new partition. Allowed to the owner and to the worker role (the supervisor).
 */
export async function ensureEventPartitions(db: Db, opts: { daysAhead?: number; daysBack?: number } = {}): Promise<number> {
  const ahead = opts.daysAhead ?? PARTITION_DAYS_AHEAD;
  const back = opts.daysBack ?? 0;
  for (const [name, v, max] of [
    ["daysAhead", ahead, 366],
    ["daysBack", back, 3660],
  ] as const) {
    if (!Number.isInteger(v) || v < 0 || v > max) throw new Error(`${name} must be an integer from 0 to ${max}, not ${v}`);
  }
  const [r] = await execute<{ created: number }>(db, sql`SELECT jobscope_ensure_event_partitions(${ahead}::int, ${back}::int) AS created`);
  return r?.created ?? 0;
}

/** Every partition of job_log with its bounds and estimated rows, oldest first, DEFAULT last. */
export async function listEventPartitions(db: Db): Promise<EventPartition[]> {
  const rows = await execute<{ name: string; lo: Date | null; hi: Date | null; isDefault: boolean; estimatedRows: string | null }>(
    db,
    sql`
    SELECT name, lo, hi, is_default, estimated_rows FROM jobscope_event_partitions()`,
  );
  return rows.map((r) => ({
    name: r.name,
    from: r.lo,
    to: r.hi,
    isDefault: r.isDefault,
    estimatedRows: r.estimatedRows === null ? null : Number(r.estimatedRows),
  }));
}

/** The partition name a UTC day gets: job_log_p20261129. */
export function dailyPartitionName(day: Date): string {
  return `job_log_p${day.toISOString().slice(0, 10).replaceAll("-", "")}`;
}
