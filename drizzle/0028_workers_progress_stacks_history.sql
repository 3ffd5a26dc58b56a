-- 0025: a worker asked to drain, progress and error stacks, the per-type history.
--
-- workers.drain_requested_at/by: an operator's request (the console's Workers page, audited as
-- worker.drain) that the worker reads with its heartbeat; the console may set those two columns only.
-- jobs_live.progress_*: the handler's ctx.progress(), written by the heartbeat's own HOT update (no
-- index covers them); null (no bytes beyond the null bitmap) for the jobs that never report any.
-- job_attempts.error_stack: the failed handler's stack, written once with the attempt that it closed.
-- metric_history: the metrics roll-up's increments per job type and hour, for the per-type charts.
CREATE TABLE "metric_history" (
	"type" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"metric" text NOT NULL,
	"queue" text DEFAULT '' NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"value" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "metric_history_pkey" PRIMARY KEY("type","bucket","metric","queue","label")
);
--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_known";--> statement-breakpoint
ALTER TABLE "job_attempts" ADD COLUMN "error_stack" text;--> statement-breakpoint
ALTER TABLE "jobs_live" ADD COLUMN "progress_attempt" integer;--> statement-breakpoint
ALTER TABLE "jobs_live" ADD COLUMN "progress_done" double precision;--> statement-breakpoint
ALTER TABLE "jobs_live" ADD COLUMN "progress_total" double precision;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "drain_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "drain_requested_by" text;--> statement-breakpoint
CREATE INDEX "metric_history_bucket_idx" ON "metric_history" USING btree ("bucket");--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_known" CHECK ("audit_log"."action" IN ('job.submit', 'job.claim', 'job.start', 'job.reclaim', 'job.cancel', 'job.abandon', 'job.finish', 'job.fail', 'job.pause', 'job.resume', 'job.stop', 'job.retry', 'job.replay', 'job.release', 'job.unknown_event', 'bulk.preview', 'bulk.start', 'bulk.cancel', 'bulk.pause', 'bulk.resume', 'bulk.abandon', 'bulk.retry', 'bulk.replay', 'replay.preview', 'replay.start', 'api_key.create', 'api_key.revoke', 'admin.user.create', 'admin.user.role', 'admin.user.deactivate', 'admin.user.reactivate', 'admin.user.password_reset', 'admin.tenant.create', 'admin.tenant.rename', 'admin.tenant.suspend', 'admin.tenant.resume', 'queue.pause', 'queue.resume', 'queue.limit', 'queue.fair', 'queue.change', 'schedule.create', 'schedule.pause', 'schedule.resume', 'worker.drain', 'alert.create', 'alert.enable', 'alert.disable', 'alert.test', 'auth.sign_in', 'auth.sign_out', 'auth.password_change', 'auth.name_change', 'auth.session_revoke', 'console.cross_origin', 'audit.retention')) NOT VALID;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON "metric_history" TO jobscope_worker;
--> statement-breakpoint
GRANT SELECT ON "metric_history" TO jobscope_app, jobscope_staff;
--> statement-breakpoint
GRANT UPDATE ("drain_requested_at", "drain_requested_by") ON "workers" TO jobscope_app, jobscope_staff;
