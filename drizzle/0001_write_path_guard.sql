-- Only the write path in lib/jobs changes a job's state, version or attempts, and
-- only it inserts jobs. It marks its transaction with
--   set_config('jobscope.write_path', 'on', true)
-- and this trigger refuses every other writer. A manual UPDATE during an
-- incident has to bypass it on purpose (session_replication_role = replica),
-- and the write path then reports the damage as drift.
CREATE FUNCTION jobs_write_path_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('jobscope.write_path', true), '') <> 'on' THEN
    RAISE EXCEPTION 'jobs.state, state_version, attempt and max_attempts change only through the write path (lib/jobs)'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_OP = 'INSERT' AND (NEW.state <> 'queued' OR NEW.state_version <> 0 OR NEW.attempt <> 0) THEN
    RAISE EXCEPTION 'a new job starts queued, at version 0 and attempt 0' USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.state_version <> OLD.state_version + 1 THEN
    RAISE EXCEPTION 'a transition moves state_version by exactly one' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER jobs_write_path_guard_insert BEFORE INSERT ON jobs
  FOR EACH ROW EXECUTE FUNCTION jobs_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER jobs_write_path_guard_update BEFORE UPDATE ON jobs
  FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state
     OR OLD.state_version IS DISTINCT FROM NEW.state_version
     OR OLD.attempt IS DISTINCT FROM NEW.attempt
     OR OLD.max_attempts IS DISTINCT FROM NEW.max_attempts)
  EXECUTE FUNCTION jobs_write_path_guard();
--> statement-breakpoint
-- The event log is append-only, and a run record is written once more at most: when it closes.
CREATE FUNCTION append_only_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER job_events_append_only BEFORE UPDATE OR DELETE ON job_events
  FOR EACH ROW EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TRIGGER transition_rejections_append_only BEFORE UPDATE OR DELETE ON transition_rejections
  FOR EACH ROW EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TRIGGER job_runs_closed_once BEFORE UPDATE ON job_runs
  FOR EACH ROW WHEN (OLD.outcome IS NOT NULL) EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TRIGGER job_runs_no_delete BEFORE DELETE ON job_runs
  FOR EACH ROW EXECUTE FUNCTION append_only_guard();
