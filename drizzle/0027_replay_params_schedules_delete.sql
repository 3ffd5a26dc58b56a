-- 0027: replay with edited params, schedules people manage, and deleting finished jobs from the console.
--
-- A replay's edited params (checked against the job's type at the confirm) travel with its item of the
-- operation to the worker that applies it, which carries them on the replay transition: job_log keeps
-- them in the event's payload, the live row runs with them, job_catalog stays as submitted
-- (docs/decisions.md, "Replay with edited params").
ALTER TABLE "bulk_operation_items" ADD COLUMN "params" jsonb;--> statement-breakpoint
-- The console's new actions join the audit log's fixed set of names (lib/audit/actions.ts). NOT VALID as in 0013.
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_known";--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_known" CHECK ("audit_log"."action" IN ('job.submit', 'job.claim', 'job.start', 'job.reclaim', 'job.cancel', 'job.abandon', 'job.finish', 'job.fail', 'job.pause', 'job.resume', 'job.stop', 'job.retry', 'job.replay', 'job.release', 'job.unknown_event', 'bulk.preview', 'bulk.start', 'jobs.delete_preview', 'jobs.delete', 'bulk.cancel', 'bulk.pause', 'bulk.resume', 'bulk.abandon', 'bulk.retry', 'bulk.replay', 'replay.preview', 'replay.start', 'api_key.create', 'api_key.revoke', 'admin.user.create', 'admin.user.role', 'admin.user.deactivate', 'admin.user.reactivate', 'admin.user.password_reset', 'admin.tenant.create', 'admin.tenant.rename', 'admin.tenant.suspend', 'admin.tenant.resume', 'queue.pause', 'queue.resume', 'queue.limit', 'queue.fair', 'queue.change', 'schedule.create', 'schedule.pause', 'schedule.resume', 'schedule.update', 'schedule.delete', 'schedule.run_now', 'alert.create', 'alert.enable', 'alert.disable', 'alert.test', 'auth.sign_in', 'auth.sign_out', 'auth.password_change', 'auth.name_change', 'auth.session_revoke', 'console.cross_origin', 'audit.retention')) NOT VALID;
--> statement-breakpoint
-- Operators delete schedules (and their run records; the jobs they submitted stay in the history).
GRANT DELETE ON "schedules", "schedule_runs" TO jobscope_app, jobscope_staff;
--> statement-breakpoint
-- Finished jobs deleted from the console, with their whole history, under retention's rules: only a job
-- that has no live row and whose last transition finished it (optionally before `finished_before`);
-- a job another transaction holds is left alone (SKIP LOCKED), as retention leaves it. History is
-- append-only for the runtime roles (0012: only retention's mark lets rows go, and only the owner has
-- DELETE), so the console deletes through this function, as the owner, with the caller's scope
-- checked first: staff only (a tenant's scope, or none, deletes nothing). The job_log rows are found
-- as retention finds them: by job id, between the jobs' earliest submit and latest finish, so only
-- those day partitions are searched.
CREATE FUNCTION jobscope_delete_finished(ids uuid[], finished_before timestamptz)
  RETURNS TABLE (deleted uuid[], runs integer, events integer)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT jobscope_sees_all() THEN
    RAISE EXCEPTION 'only staff delete jobs' USING ERRCODE = 'insufficient_privilege';
  END IF;
  PERFORM set_config('jobscope.retention', 'on', true);
  RETURN QUERY
    WITH victims AS MATERIALIZED (
      SELECT k.id, k.created_at, f.at AS finished_at FROM job_catalog k
        CROSS JOIN LATERAL job_last_transition(k.id, k.created_at) f
       WHERE k.id = ANY(ids) AND f.state IN ('succeeded', 'dead', 'cancelled')
         AND NOT EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = k.id)
         AND (finished_before IS NULL OR f.at < finished_before)
       ORDER BY k.id
       FOR UPDATE OF k SKIP LOCKED),
    ev AS (DELETE FROM job_log e
            WHERE e.job_id = ANY(ARRAY(SELECT v.id FROM victims v))
              AND e.at >= (SELECT min(v.created_at) FROM victims v) AND e.at <= (SELECT max(v.finished_at) FROM victims v)
           RETURNING 1),
    ru AS (DELETE FROM job_attempts a USING victims v WHERE a.job_id = v.id RETURNING 1),
    gone AS (DELETE FROM job_catalog k USING victims v WHERE k.id = v.id RETURNING k.id)
    SELECT coalesce((SELECT array_agg(g.id ORDER BY g.id) FROM gone g), '{}'), (SELECT count(*)::int FROM ru), (SELECT count(*)::int FROM ev);
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION jobscope_delete_finished(uuid[], timestamptz) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION jobscope_delete_finished(uuid[], timestamptz) TO jobscope_staff;
