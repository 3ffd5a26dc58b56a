-- 0020_observability: Prometheus metrics, trace context, alerts.
--
-- 1. Metrics. Counters and histograms are rolled up from the history by the supervisor's tick
--    (lib/metrics/rollup.ts): each pass reads what ended (job_attempts, job_log), was submitted
--    (job_catalog) or was refused (transition_rejections) since its cursor and adds it here, in one
--    transaction with the cursor's move, so two supervisors never count a row twice. GET /metrics
--    reads this small table: its size is queues × types × series, not the number of jobs.
CREATE TABLE "metric_totals" (
	"metric" text NOT NULL,
	"queue" text DEFAULT '' NOT NULL,
	"type" text DEFAULT '' NOT NULL,
	-- The series' other label (an outcome, a rejection kind, a histogram bucket's upper bound).
	"label" text DEFAULT '' NOT NULL,
	"value" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "metric_totals_pkey" PRIMARY KEY ("metric", "queue", "type", "label")
);
--> statement-breakpoint
CREATE TABLE "metric_cursors" (
	"source" text PRIMARY KEY NOT NULL,
	"upto_at" timestamp with time zone,
	"upto_id" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON "metric_totals", "metric_cursors" TO jobscope_app, jobscope_worker, jobscope_staff;
--> statement-breakpoint
-- 2. Traces: the W3C trace context (traceparent, and tracestate when there is one) of the request
--    that submitted the job, written with the catalog row and never changed; each attempt's span
--    continues it (lib/tracing).
ALTER TABLE "job_catalog" ADD COLUMN "trace_context" jsonb;
--> statement-breakpoint
-- 3. Alerts (lib/alerts). A rule belongs to the staff (tenant_id NULL) or to one tenant, and a
--    tenant's rule can only be about its own dead jobs.
CREATE TABLE "alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"tenant_id" text REFERENCES "tenants" ("id"),
	"queue" text,
	"type" text,
	-- oldest_due: seconds; failure_rate: a percentage.
	"threshold" double precision,
	"window_minutes" integer,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	-- Event rules: what was already looked at. Threshold rules: whether the condition held at the
	-- last evaluation (an alert goes out when it starts to hold, not on every tick while it does).
	"cursor_at" timestamp with time zone,
	"cursor_id" bigint,
	"firing" boolean DEFAULT false NOT NULL,
	"evaluated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "alert_rules_kind_known" CHECK ("kind" IN ('job_dead', 'poison_suspect', 'drift_rejection', 'queue_oldest_due', 'type_failure_rate')),
	CONSTRAINT "alert_rules_tenant_dead_only" CHECK ("tenant_id" IS NULL OR "kind" = 'job_dead'),
	CONSTRAINT "alert_rules_name_length" CHECK (length("name") BETWEEN 1 AND 100),
	CONSTRAINT "alert_rules_url_length" CHECK (length("url") BETWEEN 1 AND 2000)
);
--> statement-breakpoint
CREATE INDEX "alert_rules_tenant_idx" ON "alert_rules" USING btree ("tenant_id", "created_at");
--> statement-breakpoint
-- One row per alert sent: what it said, and the delivery job that carries it (its attempts are the
-- delivery history).
CREATE TABLE "alert_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"rule_id" uuid NOT NULL REFERENCES "alert_rules" ("id"),
	"tenant_id" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"summary" text NOT NULL,
	"payload" jsonb NOT NULL,
	"job_id" uuid
);
--> statement-breakpoint
CREATE INDEX "alert_events_rule_idx" ON "alert_events" USING btree ("rule_id", "id" DESC);
--> statement-breakpoint
CREATE INDEX "alert_events_at_idx" ON "alert_events" USING btree ("at" DESC);
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['alert_rules', 'alert_events'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY owner_all ON %I TO CURRENT_USER USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY worker_all ON %I TO jobscope_worker USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY staff_all ON %I TO jobscope_staff USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY app_scope ON %I TO jobscope_app USING (jobscope_sees_all() OR tenant_id = jobscope_tenant()) WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant())', t);
    EXECUTE format('REVOKE ALL ON %I FROM PUBLIC', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON %I TO jobscope_app, jobscope_worker, jobscope_staff', t);
  END LOOP;
END $$;
--> statement-breakpoint
-- The console's alert actions join the audit log's fixed set of action names (as in 0018).
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_known";
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_known" CHECK ("action" IN ('job.submit', 'job.claim', 'job.start', 'job.reclaim', 'job.cancel', 'job.abandon', 'job.finish', 'job.fail', 'job.pause', 'job.resume', 'job.stop', 'job.retry', 'job.replay', 'job.release', 'job.unknown_event', 'bulk.preview', 'bulk.start', 'bulk.cancel', 'bulk.pause', 'bulk.resume', 'bulk.abandon', 'bulk.retry', 'bulk.replay', 'replay.preview', 'replay.start', 'api_key.create', 'api_key.revoke', 'admin.user.create', 'admin.user.role', 'admin.user.deactivate', 'admin.user.reactivate', 'admin.user.password_reset', 'admin.tenant.create', 'admin.tenant.rename', 'admin.tenant.suspend', 'admin.tenant.resume', 'queue.pause', 'queue.resume', 'queue.limit', 'queue.fair', 'queue.change', 'schedule.create', 'schedule.pause', 'schedule.resume', 'alert.create', 'alert.enable', 'alert.disable', 'alert.test', 'auth.sign_in', 'auth.sign_out', 'auth.password_change', 'auth.name_change', 'auth.session_revoke', 'console.cross_origin', 'audit.retention')) NOT VALID;
