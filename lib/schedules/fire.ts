import type { Db } from "../db/client";
import { enqueue, EnqueueError } from "../jobs/enqueue";
import type { Actor } from "../jobs/types";
import { countTicks, latestTick, nextTick } from "./cron";
import type { ValidSchedule } from "./schedules";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";
import { describeInvalid } from "../result";

/**
 * The supervisor's half of periodic schedules: submit the due ticks, exactly one job per schedule
 * and tick however many supervisors run.
 *
 * Missed ticks: when a schedule's next tick is in the past (every supervisor was down, or the
 * database was), the supervisor submits ONE job, for the latest tick that has come, and records
 * how many earlier ticks it skipped; the next tick is then the first one after now. A job that
 * ran late once is what most periodic work wants (a report, a sync, a clean-up catch up in one
 * run); a burst of a day's missed ticks is not (docs/decisions.md, "Schedules: missed ticks…").
 *
 * Exactly one job per tick, twice over:
 * 1. A compare-and-set on the schedule row: the supervisor locks it only while `next_run_at` is
 *    still the value it read, and moves it forward in the transaction that submits the job. A
 *    second supervisor waits on the lock, then finds the row moved and does nothing.
 * 2. The job's idempotency key `schedule:<id>:<tick>` (the catalog's unique index) and the primary
 *    key of `schedule_runs` (schedule, tick): if the row were ever moved back to a tick that was
 *    already submitted, the submit returns the existing job instead of a second one.
 */
export type FireReport = { fired: number; skippedTicks: number; failed: number; lost: number };

type Due = ValidSchedule & { id: string; nextRunAt: Date; dbNow: Date };

/** Submit every due tick (at most `limit` schedules per call). `now` is for tests: the database's clock otherwise. */
export async function runDueSchedules(
  db: Db,
  opts: { supervisorId: string; limit?: number; now?: Date; log?: (line: string) => void },
): Promise<FireReport> {
  const report: FireReport = { fired: 0, skippedTicks: 0, failed: 0, lost: 0 };
  const due = await execute<Due>(
    db,
    sql`
    SELECT id, name, cron, time_zone, type, params, tenant_id, queue, priority, next_run_at,
           coalesce(${opts.now ?? null}::timestamptz, now()) AS db_now
      FROM schedules
     WHERE NOT paused AND next_run_at <= coalesce(${opts.now ?? null}::timestamptz, now())
     ORDER BY next_run_at
     LIMIT ${opts.limit ?? 100}`,
  );
  for (const s of due) {
    const r = await fireSchedule(db, s, s.dbNow, opts.supervisorId);
    if (r.kind === "fired") {
      report.fired++;
      report.skippedTicks += r.missed;
      opts.log?.(`schedule ${s.name}: tick ${r.tick.toISOString()} → job ${r.jobId}${r.missed ? ` (${r.missed} missed tick(s) skipped)` : ""}`);
    } else if (r.kind === "failed") {
      report.failed++;
      opts.log?.(`schedule ${s.name}: tick ${r.tick.toISOString()} submitted nothing: ${r.message}`);
    } else report.lost++;
  }
  return report;
}

export type FireResult =
  | { kind: "fired"; tick: Date; jobId: string; created: boolean; missed: number }
  | { kind: "failed"; tick: Date; message: string }
  /** Another supervisor moved the schedule first (or it was paused meanwhile). */
  | { kind: "lost" };

/**
 * Submit the latest tick of `s` that has come by `now`, if `s.nextRunAt` is still the schedule's
 * next tick. The job is submitted by the supervisor, named after the schedule (`schedule:<name>`).
 */
export async function fireSchedule(
  db: Db,
  s: Due | (ValidSchedule & { id: string; nextRunAt: Date }),
  now: Date,
  supervisorId: string,
): Promise<FireResult> {
  const tick = latestTick(s.cron, s.timeZone, now);
  const missed = tick > s.nextRunAt ? countTicks(s.cron, s.timeZone, s.nextRunAt, tick) : 0;
  const next = nextTick(s.cron, s.timeZone, now);
  const actor: Actor = { kind: "supervisor", id: `schedule:${s.name}` };
  return (await db.transaction(async (tx) => {
    const [held] = await execute(tx, sql`SELECT 1 FROM schedules WHERE id = ${s.id} AND next_run_at = ${s.nextRunAt} AND NOT paused FOR UPDATE`);
    if (!held) return { kind: "lost" } as const;
    try {
      const { job, created } = await tx.transaction((sp) =>
        enqueue(
          sp,
          {
            tenantId: s.tenantId,
            type: s.type,
            params: s.params,
            queue: s.queue,
            priority: s.priority,
            idempotencyKey: `schedule:${s.id}:${tick.toISOString()}`,
          },
          actor,
        ),
      );
      await execute(
        tx,
        sql`
        INSERT INTO schedule_runs (schedule_id, tick_at, tenant_id, job_id, missed, enqueued_by)
        VALUES (${s.id}, ${tick}, ${s.tenantId}, ${job.id}, ${missed}, ${supervisorId})
        ON CONFLICT (schedule_id, tick_at) DO NOTHING`,
      );
      await execute(
        tx,
        sql`
        UPDATE schedules SET next_run_at = ${next}, last_tick_at = ${tick}, last_job_id = ${job.id}, last_error = NULL, last_error_at = NULL
         WHERE id = ${s.id}`,
      );
      return { kind: "fired", tick, jobId: job.id, created, missed } as const;
    } catch (e) {
      // A schedule that can no longer submit (its tenant or type gone, params its type now refuses)
      // skips the tick and says why, instead of failing every second.
      if (!(e instanceof EnqueueError)) throw e;
      const message = `${e.message}${e.issues.length ? `: ${describeInvalid(e.issues, { most: e.issues.length })}` : ""}`;
      await execute(
        tx,
        sql`UPDATE schedules SET next_run_at = ${next}, last_error = ${message.slice(0, 1000)}, last_error_at = ${now} WHERE id = ${s.id}`,
      );
      return { kind: "failed", tick, message } as const;
    }
  })) as FireResult;
}
