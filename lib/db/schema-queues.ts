import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, smallint, text, unique, uuid } from "drizzle-orm/pg-core";
import { authored, checkKnown, fkey, jobId, serialId, tenantId, tz } from "./columns";
import { actor, tenants } from "./schema";

/**
 * A queue's settings, once an operator sets one (a queue exists as soon as a job names it): paused,
 * capped, fair between tenants. The claim statement enforces them (drizzle/0016_queues.sql).
 */
export const queues = pgTable(
  "queues",
  {
    name: text("name").primaryKey(),
    paused: boolean("paused").notNull().default(false),
    /** At most this many of the queue's jobs at work at once (claimed, running or cancelling), across every worker; null: no cap. */
    concurrencyLimit: integer("concurrency_limit"),
    /** The queue's slots taken (its jobs claimed, running or cancelling: lib/fsm/table.ts SLOT_STATES), kept by the write path while the queue has a cap. */
    leased: integer("leased").notNull().default(0),
    /** Claim in turn between tenants (`jobs_live.fair_tag`). */
    fair: boolean("fair").notNull().default(false),
    updatedAt: tz("updated_at").notNull().defaultNow(),
    updatedBy: text("updated_by"),
  },
  (t) => [
    check("queues_name_valid", sql`length(${t.name}) BETWEEN 1 AND 100`),
    check("queues_limit_positive", sql`${t.concurrencyLimit} IS NULL OR ${t.concurrencyLimit} >= 1`),
    check("queues_leased_nonnegative", sql`${t.leased} >= 0`),
  ],
);

/** Every change of a queue's settings, with who and when. */
export const queueEvents = pgTable(
  "queue_events",
  {
    id: serialId(),
    queue: text("queue").notNull(),
    event: text("event").notNull(),
    value: integer("value"),
    ...actor(),
    at: tz("at").notNull().defaultNow(),
  },
  (t) => [
    checkKnown("queue_events", t.event, ["pause", "resume", "limit", "unlimit", "fair", "unfair"]),
    index("queue_events_queue_at_idx").on(t.queue, t.at),
  ],
);

/** Where a schedule is declared: in code (upserted when a worker starts) or in the console. */
export const SCHEDULE_SOURCES = ["code", "console"] as const;

/**
 * A periodic schedule: a cron expression read in an IANA time zone, and the job it submits at each
 * tick. Declared in code (`source` 'code', upserted when a worker starts) or in the console
 * ('console'); the supervisor submits its due ticks (drizzle/0017_schedules.sql, lib/schedules).
 */
export const schedules = pgTable(
  "schedules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    cron: text("cron").notNull(),
    timeZone: text("time_zone").notNull(),
    type: text("type").notNull(),
    params: jsonb("params").notNull(),
    tenantId: tenantId(),
    queue: text("queue").notNull(),
    priority: smallint("priority").notNull().default(0),
    paused: boolean("paused").notNull().default(false),
    source: text("source").$type<(typeof SCHEDULE_SOURCES)[number]>().notNull(),
    /** The next tick to submit, moved forward by a compare-and-set in the tick's transaction. */
    nextRunAt: tz("next_run_at").notNull(),
    lastTickAt: tz("last_tick_at"),
    lastJobId: uuid("last_job_id"),
    /** Why the last tick submitted nothing; shown until a tick succeeds. */
    lastError: text("last_error"),
    lastErrorAt: tz("last_error_at"),
    ...authored(),
  },
  (t) => [
    fkey("schedules", t.tenantId, tenants.id),
    unique("schedules_name_unique").on(t.name),
    check("schedules_name_valid", sql`${t.name} ~ '^[a-z0-9][a-z0-9_.-]{0,99}$'`),
    check("schedules_queue_valid", sql`${t.queue} ~ '^[a-z0-9_.-]{1,100}$'`),
    check("schedules_priority_range", sql`${t.priority} BETWEEN 0 AND 9`),
    checkKnown("schedules", t.source, SCHEDULE_SOURCES),
    check("schedules_cron_length", sql`length(${t.cron}) BETWEEN 1 AND 200`),
    check("schedules_time_zone_length", sql`length(${t.timeZone}) BETWEEN 1 AND 100`),
    // The supervisor's scan for due schedules (paused ones take no entry).
    index("schedules_due_idx")
      .on(t.nextRunAt)
      .where(sql`NOT paused`),
  ],
);

/**
 * One row per tick a schedule submitted, with how many earlier ticks were missed. The key is the
 * second wall behind the compare-and-set: one job per schedule and tick.
 */
export const scheduleRuns = pgTable(
  "schedule_runs",
  {
    scheduleId: uuid("schedule_id").notNull(),
    tickAt: tz("tick_at").notNull(),
    tenantId: tenantId(),
    jobId: jobId(),
    missed: integer("missed").notNull().default(0),
    enqueuedAt: tz("enqueued_at").notNull().defaultNow(),
    enqueuedBy: text("enqueued_by").notNull(),
  },
  (t) => [
    primaryKey({ name: "schedule_runs_pkey", columns: [t.scheduleId, t.tickAt] }),
    fkey("schedule_runs", t.scheduleId, schedules.id),
    check("schedule_runs_missed_nonnegative", sql`${t.missed} >= 0`),
  ],
);
