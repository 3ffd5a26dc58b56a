-- 0013: the audit log's action names come from a fixed set, anonymous floods are
-- aggregated into one row per window (repeat_count), and only a retention run may delete old rows.
--
-- The list is lib/audit/actions.ts AUDIT_ACTIONS (a test compares them). NOT VALID: rows written
-- before this migration keep whatever they recorded (the log is append-only; they are not rewritten),
-- every new row is checked.
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_known" CHECK ("action" IN ('job.submit', 'job.claim', 'job.start', 'job.reclaim', 'job.cancel', 'job.abandon', 'job.finish', 'job.fail', 'job.pause', 'job.resume', 'job.stop', 'job.retry', 'job.replay', 'job.release', 'job.unknown_event', 'bulk.preview', 'bulk.start', 'bulk.cancel', 'bulk.pause', 'bulk.resume', 'bulk.abandon', 'bulk.retry', 'bulk.replay', 'replay.preview', 'replay.start', 'api_key.create', 'api_key.revoke', 'admin.user.create', 'admin.user.role', 'admin.user.deactivate', 'admin.user.reactivate', 'admin.user.password_reset', 'admin.tenant.create', 'admin.tenant.rename', 'admin.tenant.suspend', 'admin.tenant.resume', 'auth.sign_in', 'auth.sign_out', 'auth.password_change', 'auth.name_change', 'auth.session_revoke', 'console.cross_origin', 'audit.retention')) NOT VALID;
--> statement-breakpoint
-- How many attempts one row stands for: 1, or the count of a window of aggregated anonymous denials.
ALTER TABLE "audit_log" ADD COLUMN "repeat_count" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_repeat_count_positive" CHECK ("repeat_count" >= 1);
--> statement-breakpoint
-- Retention: a row may be deleted only when it is older than 365 days, and only in a transaction
-- that declared itself a retention run (lib/audit/retention.ts, which also appends a row saying what
-- it removed). UPDATE and TRUNCATE stay refused to everyone; the runtime roles have no DELETE grant.
CREATE FUNCTION audit_log_retention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE'
     AND coalesce(current_setting('jobscope.audit_retention', true), '') = 'on'
     AND OLD.at < now() - interval '365 days' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only (rows older than 365 days may be removed by a retention run)'
    USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
DROP TRIGGER audit_log_append_only ON audit_log;
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_retention_guard();
