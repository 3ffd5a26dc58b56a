CREATE TYPE "public"."actor_kind" AS ENUM('api', 'tenant', 'operator', 'worker', 'supervisor');--> statement-breakpoint
CREATE TYPE "public"."job_event" AS ENUM('submit', 'claim', 'start', 'reclaim', 'cancel', 'abandon', 'finish', 'fail', 'pause', 'resume', 'stop', 'retry', 'replay');--> statement-breakpoint
CREATE TYPE "public"."job_state" AS ENUM('queued', 'claimed', 'running', 'paused', 'cancelling', 'retry_wait', 'succeeded', 'dead', 'cancelled');--> statement-breakpoint
CREATE TYPE "public"."rejection_kind" AS ENUM('conflict', 'illegal', 'drift');--> statement-breakpoint
CREATE TYPE "public"."run_outcome" AS ENUM('succeeded', 'failed', 'lease_expired', 'cancelled', 'abandoned');--> statement-breakpoint
CREATE TABLE "job_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "job_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"job_id" uuid NOT NULL,
	"tenant_id" text NOT NULL,
	"event" "job_event" NOT NULL,
	"from_state" "job_state",
	"to_state" "job_state" NOT NULL,
	"actor_kind" "actor_kind" NOT NULL,
	"actor_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"state_version" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"payload" jsonb,
	CONSTRAINT "job_events_one_per_version" UNIQUE("job_id","state_version"),
	CONSTRAINT "job_events_submit_has_no_from" CHECK (("job_events"."from_state" IS NULL) = ("job_events"."event" = 'submit'))
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"job_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"tenant_id" text NOT NULL,
	"worker_id" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"outcome" "run_outcome",
	"error_class" text,
	"error_message" text,
	"result" jsonb,
	CONSTRAINT "job_runs_job_id_attempt_pk" PRIMARY KEY("job_id","attempt"),
	CONSTRAINT "job_runs_attempt_positive" CHECK ("job_runs"."attempt" >= 1),
	CONSTRAINT "job_runs_closed_iff_outcome" CHECK (("job_runs"."outcome" IS NULL) = ("job_runs"."finished_at" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" text NOT NULL,
	"type" text NOT NULL,
	"queue" text DEFAULT 'default' NOT NULL,
	"priority" smallint DEFAULT 0 NOT NULL,
	"state" "job_state" DEFAULT 'queued' NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"state_version" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"heartbeat_at" timestamp with time zone,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"idempotency_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "jobs_attempt_range" CHECK ("jobs"."attempt" >= 0 AND "jobs"."attempt" <= "jobs"."max_attempts"),
	CONSTRAINT "jobs_max_attempts_positive" CHECK ("jobs"."max_attempts" >= 1),
	CONSTRAINT "jobs_version_nonnegative" CHECK ("jobs"."state_version" >= 0),
	CONSTRAINT "jobs_priority_range" CHECK ("jobs"."priority" BETWEEN 0 AND 9),
	CONSTRAINT "jobs_terminal_iff_finished" CHECK ((state IN ('succeeded', 'dead', 'cancelled')) = ("jobs"."finished_at" IS NOT NULL)),
	CONSTRAINT "jobs_leased_iff_owner" CHECK ((state IN ('claimed', 'running', 'paused', 'cancelling')) = ("jobs"."lease_owner" IS NOT NULL)),
	CONSTRAINT "jobs_type_nonempty" CHECK (length("jobs"."type") BETWEEN 1 AND 200 AND length("jobs"."queue") BETWEEN 1 AND 100)
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transition_rejections" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "transition_rejections_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"job_id" uuid NOT NULL,
	"tenant_id" text,
	"event" "job_event" NOT NULL,
	"kind" "rejection_kind" NOT NULL,
	"actor_kind" "actor_kind" NOT NULL,
	"actor_id" text NOT NULL,
	"expected_state" "job_state",
	"expected_version" integer,
	"current_state" "job_state",
	"current_version" integer,
	"reason" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workers" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"queues" text[] NOT NULL,
	"concurrency" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopped_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_runs" ADD CONSTRAINT "job_runs_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_events_at_idx" ON "job_events" USING btree ("at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "job_runs_worker_idx" ON "job_runs" USING btree ("worker_id","claimed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "job_runs_finished_idx" ON "job_runs" USING btree ("finished_at" DESC NULLS LAST) WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "jobs_claim_idx" ON "jobs" USING btree ("queue","priority","not_before","id") WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX "jobs_live_heartbeat_idx" ON "jobs" USING btree ("heartbeat_at") WHERE state IN ('claimed', 'running', 'cancelling');--> statement-breakpoint
CREATE INDEX "jobs_retry_due_idx" ON "jobs" USING btree ("not_before") WHERE state = 'retry_wait';--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_idempotency_key_idx" ON "jobs" USING btree ("tenant_id","idempotency_key") WHERE idempotency_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX "jobs_state_created_idx" ON "jobs" USING btree ("state","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_tenant_created_idx" ON "jobs" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_created_idx" ON "jobs" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_type_created_idx" ON "jobs" USING btree ("type","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_finished_idx" ON "jobs" USING btree ("finished_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "transition_rejections_at_idx" ON "transition_rejections" USING btree ("at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "transition_rejections_job_idx" ON "transition_rejections" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "transition_rejections_kind_idx" ON "transition_rejections" USING btree ("kind","at" DESC NULLS LAST);