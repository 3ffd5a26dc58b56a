import "server-only";
import type { Db } from "../db/client";
import { run, execute } from "../db/drizzle";
import { schedules as schedulesTable } from "../db/schema-queues";
import type { JobState } from "../fsm/table";
import { checkCron, describeCron, upcomingTicks } from "./cron";
import type { ScheduleRow } from "./schedules";
import { sql } from "drizzle-orm";

/** Most schedules the page lists, and runs shown per schedule. */
export const SCHEDULE_LIMIT = 200;
export const RUNS_SHOWN = 5;

export type ScheduleRun = { tickAt: Date; jobId: string; missed: number; enqueuedAt: Date; enqueuedBy: string; state: JobState | null };

export type ScheduleListRow = ScheduleRow & {
  /** The cron expression in words (cronstrue), or null when it does not read. */
  description: string | null;
  /** Why the schedule would not be accepted now (a per-second expression stored before that was refused), or null. */
  problem: string | null;
  /** The next ticks (none while paused). */
  upcoming: Date[];
  /** The newest runs, newest first, each with its job's state now (null: the job is gone, e.g. to retention). */
  runs: ScheduleRun[];
};

/**
 * Every schedule with its next ticks and its last runs. Served by schedules' primary key order,
 * schedule_runs_pkey (schedule_id, tick_at) read backwards per schedule, and per run its job by
 * primary key (job_catalog, then jobs_live or its last transition).
 */
export async function listSchedules(db: Db, now = new Date()): Promise<ScheduleListRow[]> {
  const schedules = await run(db.select().from(schedulesTable).orderBy(schedulesTable.name).limit(SCHEDULE_LIMIT));
  if (schedules.length === 0) return [];
  const runs = await execute<Omit<ScheduleRun, "state"> & { scheduleId: string }>(
    db,
    sql`
    SELECT r.schedule_id, r.tick_at, r.job_id, r.missed, r.enqueued_at, r.enqueued_by
      FROM unnest(${sql.param(schedules.map((s) => s.id))}::uuid[]) AS s(id)
      CROSS JOIN LATERAL (
        SELECT * FROM schedule_runs r WHERE r.schedule_id = s.id ORDER BY r.tick_at DESC LIMIT ${RUNS_SHOWN}) r`,
  );
  const states =
    runs.length === 0
      ? []
      : await execute<{ id: string; state: JobState }>(
          db,
          sql`SELECT id, state FROM jobs WHERE id = ANY(${sql.param(runs.map((r) => r.jobId))}::uuid[])`,
        );
  const stateOf = new Map(states.map((s) => [s.id, s.state]));
  const byId = new Map<string, ScheduleRun[]>();
  for (const { scheduleId, ...r } of runs) {
    const list = byId.get(scheduleId) ?? [];
    list.push({ ...r, state: stateOf.get(r.jobId) ?? null });
    byId.set(scheduleId, list);
  }
  return schedules.map((s) => ({
    ...s,
    description: describeCron(s.cron),
    problem: problemOf(s),
    upcoming: s.paused
      ? []
      : [s.nextRunAt, ...upcomingTicks(s.cron, s.timeZone, new Date(Math.max(s.nextRunAt.getTime(), now.getTime())), 2)].slice(0, 3),
    runs: (byId.get(s.id) ?? []).sort((a, b) => b.tickAt.getTime() - a.tickAt.getTime()),
  }));
}

/** What checkCron says of a stored expression today (one accepted before its rules tightened). */
function problemOf(s: ScheduleRow): string | null {
  const c = checkCron(s.cron, s.timeZone);
  return c.ok ? null : c.message;
}
