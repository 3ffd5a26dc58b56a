import { z } from "zod";
import { getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { schedules } from "../db/schema-queues";
import { isJobType, JOB_TYPES, maySubmit, type JobParams, type JobType } from "../jobs/job-types";
import { enqueue, EnqueueError } from "../jobs/enqueue";
import { uuidv7 } from "../jobs/ids";
import type { Actor } from "../jobs/types";
import { checkCron, nextTick } from "./cron";
import { columnList, execute, pgError } from "../db/drizzle";
import { describeInvalid, inputIssues } from "../result";

/**
 * Periodic schedules: a cron expression read in an IANA time zone, and the job each
 * tick submits. Declared in code beside a worker's handlers (`declareSchedules`, at worker start)
 * or created in the console (`createSchedule`); the supervisor submits the due ticks
 * (lib/schedules/fire.ts).
 */
export const SCHEDULE_NAME = /^[a-z0-9][a-z0-9_.-]{0,99}$/;

export const ScheduleInput = z.strictObject({
  name: z.string().regex(SCHEDULE_NAME, "lowercase letters, digits, _ . - (starting with a letter or digit, at most 100)"),
  cron: z.string().trim().min(1, "a cron expression is required").max(200),
  timeZone: z.string().trim().min(1).max(100).default("UTC"),
  type: z.string().min(1).max(200),
  params: z.unknown().default({}),
  tenantId: z.string().min(1).max(100),
  queue: z
    .string()
    .regex(/^[a-z0-9_.-]{1,100}$/, "lowercase letters, digits, _ . - (at most 100)")
    .optional(),
  priority: z.int().min(0).max(9).default(0),
});
export type ScheduleInput = z.input<typeof ScheduleInput>;

/**
 * A schedule as code declares it: the type's params are typed, and the queue defaults to the type's.
 * `createWorker({ schedules })` takes these.
 */
export type ScheduleDeclaration<T extends JobType = JobType> = {
  name: string;
  cron: string;
  timeZone?: string;
  type: T;
  params: JobParams<T>;
  tenantId: string;
  queue?: string;
  priority?: number;
};

/** A schedule once validated: its type known, its params as the type's schema gives them back. */
export type ValidSchedule = {
  name: string;
  cron: string;
  timeZone: string;
  type: JobType;
  params: unknown;
  tenantId: string;
  queue: string;
  priority: number;
};

export class ScheduleError extends Error {
  constructor(
    readonly code: "invalid_input" | "unknown_tenant" | "name_taken" | "not_found" | "conflict" | "declared_in_code",
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "ScheduleError";
  }
}

/** Validate everything a tick will need, so that a schedule that is stored can submit its job. */
export function validateSchedule(raw: unknown): ValidSchedule {
  const parsed = ScheduleInput.safeParse(raw);
  if (!parsed.success) {
    throw new ScheduleError("invalid_input", describeInvalid(parsed.error), inputIssues(parsed.error)[0]?.path || "input");
  }
  const s = parsed.data;
  const cron = checkCron(s.cron, s.timeZone);
  if (!cron.ok) throw new ScheduleError("invalid_input", `cron: ${cron.message}`, cron.message.includes("time zone") ? "timeZone" : "cron");
  if (!isJobType(s.type))
    throw new ScheduleError(
      "invalid_input",
      `type: unknown job type ${JSON.stringify(s.type.slice(0, 200))}; known: ${Object.keys(JOB_TYPES).join(", ")}`,
      "type",
    );
  const params = JOB_TYPES[s.type].params.safeParse(s.params);
  if (!params.success) {
    throw new ScheduleError("invalid_input", `${describeInvalid(params.error, { prefix: "params" })} (for ${s.type})`, "params");
  }
  return {
    name: s.name,
    cron: s.cron.trim(),
    timeZone: s.timeZone,
    type: s.type,
    params: params.data,
    tenantId: s.tenantId,
    queue: s.queue ?? JOB_TYPES[s.type].queue,
    priority: s.priority,
  };
}

/**
 * A stored schedule, as lib/db/schema-queues.ts declares the table. Its type is a string: a type
 * valid when the schedule was stored may be gone since (the tick then records `last_error`).
 */
export type ScheduleRow = typeof schedules.$inferSelect;

/** Every column of a schedule, for a hand-written `SELECT` or `RETURNING`: the table's own list. */
const SCHEDULE_COLUMNS = columnList(getTableColumns(schedules));

/** Who changes a schedule, as the schedule's `created_by` / `updated_by` say it. */
export type ScheduleAuthor = string;

const isUnique = (e: unknown, constraint: string) => pgError(e)?.code === "23505" && pgError(e)?.constraint_name === constraint;
const isUnknownTenant = (e: unknown) => pgError(e)?.code === "23503" && pgError(e)?.constraint_name === "schedules_tenant_id_fkey";

/** Create a schedule from the console. Its first tick is the first one after `now`. */
export async function createSchedule(db: Db, raw: unknown, by: ScheduleAuthor, now = new Date()): Promise<ScheduleRow> {
  // Jobscope's own types (bulk runs, webhooks, the demo's crash) are not the console's to submit, on a schedule or not.
  const type = raw && typeof raw === "object" && "type" in raw ? raw.type : undefined;
  if (typeof type === "string" && !maySubmit(type, "console"))
    throw new ScheduleError("invalid_input", `type: ${type} is submitted only by Jobscope itself`, "type");
  const s = validateSchedule(raw);
  try {
    const [row] = await execute<ScheduleRow>(
      db,
      sql`
      INSERT INTO schedules (name, cron, time_zone, type, params, tenant_id, queue, priority, source, next_run_at, created_by, updated_by)
      VALUES (${s.name}, ${s.cron}, ${s.timeZone}, ${s.type}, ${JSON.stringify(s.params)}::text::jsonb, ${s.tenantId}, ${s.queue}, ${s.priority},
              'console', ${nextTick(s.cron, s.timeZone, now)}, ${by}, ${by})
      RETURNING ${SCHEDULE_COLUMNS}`,
    );
    return row!;
  } catch (e) {
    if (isUnique(e, "schedules_name_unique")) throw new ScheduleError("name_taken", `a schedule named ${s.name} exists already`, "name");
    if (isUnknownTenant(e)) throw new ScheduleError("unknown_tenant", `unknown tenant ${JSON.stringify(s.tenantId)}`, "tenantId");
    throw e;
  }
}

/** What an edit may change: everything but the name (a schedule's identity in code, links and runs). */
export const ScheduleEdit = ScheduleInput.omit({ name: true });

/** Refuse a change to a schedule declared in code: the next worker start would put the declaration back. */
function assertConsoleOwned(s: ScheduleRow, what: string): void {
  if (s.source === "code") {
    throw new ScheduleError(
      "declared_in_code",
      `${s.name} is declared in code beside a worker's handlers: ${what} it there (the next worker start would undo a change made here). It can be paused, resumed or run now here`,
    );
  }
}

/** The schedule `id`, locked for a change, if it is still as the person saw it (its `updated_at`). */
async function lockedAsSeen(db: Db, id: string, seen: Date | string): Promise<ScheduleRow> {
  const [current] = await execute<ScheduleRow>(db, sql`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE id = ${id} FOR UPDATE`);
  if (!current) throw new ScheduleError("not_found", "that schedule does not exist (any more)");
  if (current.updatedAt.getTime() !== new Date(seen).getTime()) {
    throw new ScheduleError("conflict", `${current.name} was changed by ${current.updatedBy} since you opened it: reload it and try again`);
  }
  return current;
}

/**
 * Edit a console schedule, guarded by the `updated_at` the person saw (a change in between is
 * refused, not overwritten). Checked as at create. A new cron expression or time zone starts
 * again at its first tick after `now`; otherwise the next tick stays.
 */
export async function updateSchedule(
  db: Db,
  id: string,
  seen: Date | string,
  raw: unknown,
  by: ScheduleAuthor,
  now = new Date(),
): Promise<ScheduleRow> {
  const current = await lockedAsSeen(db, id, seen);
  assertConsoleOwned(current, "change");
  const type = raw && typeof raw === "object" && "type" in raw ? raw.type : undefined;
  if (typeof type === "string" && !maySubmit(type, "console"))
    throw new ScheduleError("invalid_input", `type: ${type} is submitted only by Jobscope itself`, "type");
  const parsed = ScheduleEdit.safeParse(raw);
  if (!parsed.success) {
    throw new ScheduleError("invalid_input", describeInvalid(parsed.error), inputIssues(parsed.error)[0]?.path || "input");
  }
  const s = validateSchedule({ ...parsed.data, name: current.name });
  const timing = s.cron !== current.cron || s.timeZone !== current.timeZone;
  const next = timing ? nextTick(s.cron, s.timeZone, now) : current.nextRunAt;
  try {
    const [row] = await execute<ScheduleRow>(
      db,
      sql`
      UPDATE schedules SET cron = ${s.cron}, time_zone = ${s.timeZone}, type = ${s.type}, params = ${JSON.stringify(s.params)}::text::jsonb,
             tenant_id = ${s.tenantId}, queue = ${s.queue}, priority = ${s.priority}, next_run_at = ${next},
             last_error = NULL, last_error_at = NULL, updated_at = now(), updated_by = ${by}
       WHERE id = ${id}
      RETURNING ${SCHEDULE_COLUMNS}`,
    );
    return row!;
  } catch (e) {
    if (isUnknownTenant(e)) throw new ScheduleError("unknown_tenant", `unknown tenant ${JSON.stringify(s.tenantId)}`, "tenantId");
    throw e;
  }
}

/**
 * Delete a console schedule and its run records, guarded like an edit. The jobs its ticks
 * submitted stay (their history is the jobs'; their idempotency keys name the schedule's id).
 */
export async function deleteSchedule(db: Db, id: string, seen: Date | string): Promise<ScheduleRow> {
  const current = await lockedAsSeen(db, id, seen);
  assertConsoleOwned(current, "delete");
  await execute(db, sql`DELETE FROM schedule_runs WHERE schedule_id = ${id}`);
  await execute(db, sql`DELETE FROM schedules WHERE id = ${id}`);
  return current;
}

/**
 * Submit the schedule's job now, once, as `actor` (the person who asked), whatever its next tick or
 * pause: the tick stays where it was. Recorded as one of its runs, at this moment, by `by`.
 */
export async function runScheduleNow(db: Db, id: string, actor: Actor, by: ScheduleAuthor): Promise<{ schedule: ScheduleRow; jobId: string }> {
  const [s] = await execute<ScheduleRow>(db, sql`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE id = ${id} FOR UPDATE`);
  if (!s) throw new ScheduleError("not_found", "that schedule does not exist (any more)");
  if (!maySubmit(s.type, "console")) throw new ScheduleError("invalid_input", `type: ${s.type} is submitted only by Jobscope itself`, "type");
  let job: { id: string };
  try {
    ({ job } = await enqueue(
      db,
      {
        tenantId: s.tenantId,
        type: s.type,
        params: s.params,
        queue: s.queue,
        priority: s.priority,
        idempotencyKey: `schedule:${s.id}:now:${uuidv7()}`,
      },
      actor,
    ));
  } catch (e) {
    // The schedule can no longer submit (its type gone, params its type now refuses): said, nothing written.
    if (e instanceof EnqueueError)
      throw new ScheduleError("invalid_input", `${e.message}${e.issues.length ? `: ${describeInvalid(e.issues, { most: e.issues.length })}` : ""}`);
    throw e;
  }
  await execute(
    db,
    sql`
    INSERT INTO schedule_runs (schedule_id, tick_at, tenant_id, job_id, missed, enqueued_by)
    VALUES (${s.id}, clock_timestamp(), ${s.tenantId}, ${job.id}, 0, ${by})`,
  );
  return { schedule: s, jobId: job.id };
}

/**
 * Pause or resume a schedule. A resumed schedule starts again at its next tick after `now`: the
 * ticks it would have had while paused are not made up (pausing means "do not run").
 * Returns the schedule and whether this call changed it, or null when there is no such schedule.
 */
export async function setSchedulePaused(
  db: Db,
  id: string,
  paused: boolean,
  by: ScheduleAuthor,
  now = new Date(),
): Promise<{ schedule: ScheduleRow; changed: boolean } | null> {
  const [current] = await execute<ScheduleRow>(db, sql`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE id = ${id} FOR UPDATE`);
  if (!current) return null;
  if (current.paused === paused) return { schedule: current, changed: false };
  const [row] = await execute<ScheduleRow>(
    db,
    sql`
    UPDATE schedules SET paused = ${paused}, updated_at = now(), updated_by = ${by},
           next_run_at = ${paused ? current.nextRunAt : nextTick(current.cron, current.timeZone, now)}
     WHERE id = ${id}
    RETURNING ${SCHEDULE_COLUMNS}`,
  );
  return { schedule: row!, changed: true };
}

export type DeclareOutcome = { name: string; outcome: "created" | "updated" | "unchanged" | "conflict" | "invalid"; message?: string };

/**
 * Upsert the schedules a worker declares in code, by name. A declared schedule keeps its paused
 * flag (an operator's choice) and its next tick unless the cron expression or time zone changed.
 * A name that a console schedule holds is left alone and reported as a conflict; an invalid
 * declaration is reported and skipped, so one bad entry does not stop the worker.
 */
export async function declareSchedules(
  db: Db,
  declarations: readonly ScheduleDeclaration[],
  by: ScheduleAuthor,
  now = new Date(),
): Promise<DeclareOutcome[]> {
  const out: DeclareOutcome[] = [];
  for (const d of declarations) {
    let s: ValidSchedule;
    try {
      s = validateSchedule({ ...d });
    } catch (e) {
      out.push({ name: String(d.name), outcome: "invalid", message: e instanceof Error ? e.message : String(e) });
      continue;
    }
    const next = nextTick(s.cron, s.timeZone, now);
    try {
      const rows = await execute<{ inserted: boolean; changed: boolean }>(
        db,
        sql`
        INSERT INTO schedules (name, cron, time_zone, type, params, tenant_id, queue, priority, source, next_run_at, created_by, updated_by)
        VALUES (${s.name}, ${s.cron}, ${s.timeZone}, ${s.type}, ${JSON.stringify(s.params)}::text::jsonb, ${s.tenantId}, ${s.queue}, ${s.priority},
                'code', ${next}, ${by}, ${by})
        ON CONFLICT (name) DO UPDATE SET
          cron = EXCLUDED.cron, time_zone = EXCLUDED.time_zone, type = EXCLUDED.type, params = EXCLUDED.params,
          tenant_id = EXCLUDED.tenant_id, queue = EXCLUDED.queue, priority = EXCLUDED.priority,
          next_run_at = CASE WHEN (schedules.cron, schedules.time_zone) IS DISTINCT FROM (EXCLUDED.cron, EXCLUDED.time_zone)
                             THEN EXCLUDED.next_run_at ELSE schedules.next_run_at END,
          updated_at = now(), updated_by = EXCLUDED.updated_by
         WHERE schedules.source = 'code'
           AND (schedules.cron, schedules.time_zone, schedules.type, schedules.params, schedules.tenant_id, schedules.queue, schedules.priority)
               IS DISTINCT FROM (EXCLUDED.cron, EXCLUDED.time_zone, EXCLUDED.type, EXCLUDED.params, EXCLUDED.tenant_id, EXCLUDED.queue, EXCLUDED.priority)
        RETURNING (xmax = 0) AS inserted, true AS changed`,
      );
      if (rows[0]) {
        out.push({ name: s.name, outcome: rows[0].inserted ? "created" : "updated" });
        continue;
      }
      const [existing] = await execute<{ source: string }>(db, sql`SELECT source FROM schedules WHERE name = ${s.name}`);
      out.push(
        existing?.source === "console"
          ? { name: s.name, outcome: "conflict", message: `a schedule created in the console is named ${s.name}; the declaration is ignored` }
          : { name: s.name, outcome: "unchanged" },
      );
    } catch (e) {
      if (!isUnknownTenant(e)) throw e;
      out.push({ name: s.name, outcome: "invalid", message: `unknown tenant ${JSON.stringify(s.tenantId)}` });
    }
  }
  return out;
}
