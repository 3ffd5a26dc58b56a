-- 0010_claim_and_start: a worker that can run a job at once claims and starts it in one
-- statement (lib/jobs/claim.ts, `startNow`): the row goes queued → claimed → running in one
-- UPDATE, with both events appended (claim at version v+1, start at v+2). One UPDATE of the hot
-- row instead of two: each non-HOT update writes an entry into every index of `jobs`.
-- The guard keeps "one transition moves state_version by exactly one" for every other write
-- and admits exactly this composite: from queued to running, two versions, one attempt.
CREATE OR REPLACE FUNCTION jobs_write_path_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('jobscope.write_path', true), '') <> 'on' THEN
    RAISE EXCEPTION 'jobs.state, state_version, attempt and max_attempts change only through the write path (lib/jobs)'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_OP = 'INSERT' AND (NEW.state <> 'queued' OR NEW.state_version <> 0 OR NEW.attempt <> 0) THEN
    RAISE EXCEPTION 'a new job starts queued, at version 0 and attempt 0' USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.state_version <> OLD.state_version + 1
     AND NOT (OLD.state = 'queued' AND NEW.state = 'running'
              AND NEW.state_version = OLD.state_version + 2 AND NEW.attempt = OLD.attempt + 1) THEN
    RAISE EXCEPTION 'a transition moves state_version by exactly one (claim-and-start: two)' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
