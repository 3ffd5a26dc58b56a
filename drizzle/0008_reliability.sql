-- 0008_reliability. A draining worker hands back a job it claimed but never
-- started: event `release`, and the run record closes with outcome `released` (the attempt
-- is refunded on the budget side: see docs/decisions.md). New enum values can be added in
-- the migration's transaction but not used in it, and nothing here uses them.
ALTER TYPE "public"."job_event" ADD VALUE IF NOT EXISTS 'release';
--> statement-breakpoint
ALTER TYPE "public"."run_outcome" ADD VALUE IF NOT EXISTS 'released';
--> statement-breakpoint
-- One row per integrity audit: the window of job activity it checked and what it found.
-- A scheduled audit starts from the end of the last one (`window_to`), so it stays cheap.
CREATE TABLE "integrity_audits" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"window_from" timestamp with time zone NOT NULL,
	"window_to" timestamp with time zone NOT NULL,
	"jobs_checked" integer NOT NULL,
	"mismatches" integer NOT NULL,
	"details" jsonb NOT NULL DEFAULT '[]'::jsonb,
	"duration_ms" integer NOT NULL,
	"actor" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "integrity_audits_window" CHECK ("window_from" <= "window_to")
);
--> statement-breakpoint
CREATE INDEX "integrity_audits_at_idx" ON "integrity_audits" USING btree ("at" DESC NULLS LAST);
--> statement-breakpoint
-- The console (role jobscope_app, drizzle/0005_identity.sql) runs audits from the operator panel and stores them.
GRANT SELECT, INSERT ON "integrity_audits" TO jobscope_app;
