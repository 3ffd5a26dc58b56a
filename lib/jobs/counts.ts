import type { Sql } from "../db/client";
import { STATES, type JobState } from "../fsm/table";

/**
 * How many jobs are in each state, with a zero for every state that has none.
 * Takes `sql` so a caller can pass a transaction.
 */
export async function countJobsByState(sql: Sql): Promise<Record<JobState, number>> {
  // Exact counts scan the whole table; the console issue replaces them with capped/estimated counts.
  const rows = await sql<{ state: JobState; n: number }[]>`
    SELECT state, count(*)::int AS n FROM jobs GROUP BY state
  `;
  const byState = new Map(rows.map((row) => [row.state, row.n]));
  // Object.fromEntries cannot type its keys; every state is present by construction.
  return Object.fromEntries(STATES.map((state) => [state, byState.get(state) ?? 0])) as Record<JobState, number>;
}
