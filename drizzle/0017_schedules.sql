-- 0017_schedules: periodic schedules. A schedule is a cron expression read in an IANA time
-- zone, and the job it submits at each tick (type, params, tenant, queue, priority). Declared in code
-- next to a worker's handlers (upserted when the worker starts) or created in the console; the
-- supervisor submits its due ticks (lib/schedules/fire.ts).
CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"cron" text NOT NULL,
	"time_zone" text NOT NULL,
	"type" text NOT NULL,
	"params" jsonb NOT NULL,
	"tenant_id" text NOT NULL REFERENCES "tenants" ("id"),
	"queue" text NOT NULL,
	"priority" smallint DEFAULT 0 NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	-- Where it was declared: 'code' (a worker's `schedules`, which a later start may rewrite) or
	-- 'console' (an operator's; a worker never rewrites it).
	"source" text NOT NULL,
	-- The next tick to submit. The supervisor moves it forward with a compare-and-set on its old
	-- value, in the transaction that submits the tick's job.
	"next_run_at" timestamp with time zone NOT NULL,
	"last_tick_at" timestamp with time zone,
	"last_job_id" uuid,
	-- Why the last tick submitted nothing (a type or tenant that no longer exists, params its type
	-- refuses now): the tick is skipped, and the console shows this until a tick succeeds.
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "schedules_name_unique" UNIQUE ("name"),
	CONSTRAINT "schedules_name_valid" CHECK ("name" ~ '^[a-z0-9][a-z0-9_.-]{0,99}$'),
	CONSTRAINT "schedules_queue_valid" CHECK ("queue" ~ '^[a-z0-9_.-]{1,100}$'),
	CONSTRAINT "schedules_priority_range" CHECK ("priority" BETWEEN 0 AND 9),
	CONSTRAINT "schedules_source_known" CHECK ("source" IN ('code', 'console')),
	CONSTRAINT "schedules_cron_length" CHECK (length("cron") BETWEEN 1 AND 200),
	CONSTRAINT "schedules_time_zone_length" CHECK (length("time_zone") BETWEEN 1 AND 100)
);
--> statement-breakpoint
-- The supervisor's scan: the schedules whose next tick has come (paused ones take no entry).
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("next_run_at") WHERE NOT "paused";
--> statement-breakpoint
-- One row per tick a schedule submitted: the job it enqueued, and how many earlier ticks were
-- missed (the supervisors were down) and skipped by the missed-tick policy (docs/decisions.md).
-- The primary key is the second wall behind the compare-and-set: one job per schedule and tick
-- (the first is the catalog's idempotency key `schedule:<id>:<tick>`).
CREATE TABLE "schedule_runs" (
	"schedule_id" uuid NOT NULL REFERENCES "schedules" ("id"),
	"tick_at" timestamp with time zone NOT NULL,
	"tenant_id" text NOT NULL,
	"job_id" uuid NOT NULL,
	"missed" integer DEFAULT 0 NOT NULL,
	"enqueued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"enqueued_by" text NOT NULL,
	CONSTRAINT "schedule_runs_pkey" PRIMARY KEY ("schedule_id", "tick_at"),
	CONSTRAINT "schedule_runs_missed_nonnegative" CHECK ("missed" >= 0)
);
--> statement-breakpoint
-- Row-level security as on the job tables (drizzle/0012): a tenant member's transaction sees only
-- its tenant's schedules; staff, workers and supervisors see all.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['schedules', 'schedule_runs'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY owner_all ON %I TO CURRENT_USER USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY worker_all ON %I TO jobscope_worker USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY staff_all ON %I TO jobscope_staff USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY app_scope ON %I TO jobscope_app USING (jobscope_sees_all() OR tenant_id = jobscope_tenant()) WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant())', t);
    EXECUTE format('REVOKE ALL ON %I FROM PUBLIC', t);
    EXECUTE format('GRANT SELECT, INSERT ON %I TO jobscope_app, jobscope_worker, jobscope_staff', t);
  END LOOP;
END $$;
--> statement-breakpoint
-- Operators pause and resume schedules; workers rewrite their declared ones; supervisors move
-- `next_run_at`. Nothing deletes a schedule or a run.
GRANT UPDATE ON "schedules" TO jobscope_app, jobscope_worker, jobscope_staff;
--> statement-breakpoint
-- Not schedules: a fix the runtime roles needed since the replay started holding its catalog row
-- (`FOR KEY SHARE OF c` in the guarded write's `rep`, lib/jobs/write.ts). A row lock needs UPDATE
-- privilege on a column of the table, and the lock is part of every guarded write's plan, replay or
-- not: every worker report and console action as jobscope_worker / jobscope_app / jobscope_staff
-- failed with "permission denied for table job_catalog". The grant allows the lock and nothing
-- else: job_catalog_append_only still refuses every UPDATE statement.
GRANT UPDATE ("id") ON "job_catalog" TO jobscope_app, jobscope_worker, jobscope_staff;
